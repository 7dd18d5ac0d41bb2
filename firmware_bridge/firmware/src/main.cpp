// LED board firmware: WS2812 strip beside the backgammon table, driven over USB serial.
// Protocol: firmware_bridge/PROTOCOL.md. Frame parsing and building: include/led_protocol.h
// (host-tested). This file holds only the Arduino glue: serial I/O, FastLED output, the
// heartbeat timeout that blanks the LEDs, and two optional buttons.
#include <Arduino.h>
#include <FastLED.h>

#include "led_protocol.h"

#ifndef LED_COUNT
#define LED_COUNT 28
#endif
#ifndef LED_DATA_PIN
#define LED_DATA_PIN 6
#endif
#ifndef BUTTON_CONFIRM_PIN
#define BUTTON_CONFIRM_PIN 2
#endif
#ifndef BUTTON_UNDO_PIN
#define BUTTON_UNDO_PIN 3
#endif
#ifndef MAX_BRIGHTNESS
#define MAX_BRIGHTNESS 96
#endif

static const uint8_t FW_MAJOR = 1, FW_MINOR = 0, FW_PATCH = 0;
static const uint32_t HEARTBEAT_TIMEOUT_MS = 3000;
static const uint32_t RENDER_INTERVAL_MS = 20;
static const uint32_t DEBOUNCE_MS = 30;
static const uint32_t LONG_PRESS_MS = 1500;
static const char DEVICE_ID[] = "leds-28";

static ledproto::Decoder decoder;
static ledproto::Led state[LED_COUNT];
static CRGB pixels[LED_COUNT];
static uint8_t tx_seq = 0;
static uint32_t last_host_frame_ms = 0;
static bool host_seen = false;
static bool blanked = false;
static uint32_t last_render_ms = 0;

struct ButtonState {
  uint8_t pin, id;
  bool down;
  uint32_t changed_ms;
  bool long_sent;
};
static ButtonState buttons[2] = {{BUTTON_CONFIRM_PIN, 1, false, 0, false},
                                 {BUTTON_UNDO_PIN, 2, false, 0, false}};

// The board only sends short frames (HELLO is the longest: 13 payload bytes).
static const size_t kMaxOwnPayload = 40;

static void send_frame(uint8_t type, const uint8_t* payload, size_t len) {
  if (len > kMaxOwnPayload) return;
  uint8_t out[kMaxOwnPayload + 8];
  size_t n = ledproto::encode_frame(type, tx_seq++, payload, len, out);
  Serial.write(out, n);
}

static void send_hello() {
  uint8_t p[6 + sizeof(DEVICE_ID) - 1] = {1, FW_MAJOR, FW_MINOR, FW_PATCH, LED_COUNT,
                                          1 | 2 | 4 | 8};
  memcpy(p + 6, DEVICE_ID, sizeof(DEVICE_ID) - 1);
  send_frame(ledproto::kHello, p, sizeof(p));
}

static void clear_state() {
  for (uint8_t i = 0; i < LED_COUNT; ++i) state[i].r = state[i].g = state[i].b = state[i].pattern = 0;
}

static void handle_frame() {
  uint8_t type = decoder.type(), seq = decoder.seq();
  last_host_frame_ms = millis();
  host_seen = true;
  uint8_t reason = 0;
  switch (type) {
    case ledproto::kSetLeds:
      reason = ledproto::apply_set_leds(decoder.payload(), decoder.payload_len(), state, LED_COUNT);
      if (!reason) blanked = false;
      break;
    case ledproto::kClear:
      if (decoder.payload_len() != 0) { reason = ledproto::kBadLength; break; }
      clear_state();
      blanked = false;
      break;
    case ledproto::kHeartbeat:
      if (decoder.payload_len() != 0) reason = ledproto::kBadLength;
      break;
    case ledproto::kHelloRequest:
      send_hello();
      return;  // answered with HELLO, no ACK
    default:
      reason = ledproto::kUnknownType;
  }
  uint8_t reply[2] = {seq, reason ? reason : (uint8_t)(blanked ? ledproto::kAckFlagBlanked : 0)};
  send_frame(reason ? ledproto::kNack : ledproto::kAck, reply, 2);
}

static void render(uint32_t now) {
  for (uint8_t i = 0; i < LED_COUNT; ++i) {
    uint8_t level = ledproto::pattern_level(state[i].pattern, now);
    pixels[i] = CRGB(state[i].r, state[i].g, state[i].b);
    pixels[i].nscale8_video(level);
  }
  FastLED.show();
}

static void poll_buttons(uint32_t now) {
  for (uint8_t b = 0; b < 2; ++b) {
    ButtonState& s = buttons[b];
    bool down = digitalRead(s.pin) == LOW;  // INPUT_PULLUP: pressed pulls low
    if (down != s.down && now - s.changed_ms > DEBOUNCE_MS) {
      s.down = down;
      s.changed_ms = now;
      if (!down && !s.long_sent) {
        uint8_t p[2] = {s.id, 1};
        send_frame(ledproto::kButton, p, 2);
      }
      s.long_sent = false;
    } else if (s.down && !s.long_sent && now - s.changed_ms > LONG_PRESS_MS) {
      uint8_t p[2] = {s.id, 2};
      send_frame(ledproto::kButton, p, 2);
      s.long_sent = true;
    }
  }
}

void setup() {
  FastLED.addLeds<WS2812B, LED_DATA_PIN, GRB>(pixels, LED_COUNT);
  FastLED.setBrightness(MAX_BRIGHTNESS);
  clear_state();
  render(0);
  pinMode(BUTTON_CONFIRM_PIN, INPUT_PULLUP);
  pinMode(BUTTON_UNDO_PIN, INPUT_PULLUP);
  Serial.begin(115200);
  Serial.write((uint8_t)0);  // flush any partial frame at the host
  send_hello();
}

void loop() {
  while (Serial.available() > 0) {
    ledproto::FeedResult r = decoder.feed((uint8_t)Serial.read());
    if (r == ledproto::kFrame) handle_frame();
    // Corrupt frames are dropped silently: the host retries on its ACK timeout.
  }
  uint32_t now = millis();
  if (host_seen && !blanked && now - last_host_frame_ms > HEARTBEAT_TIMEOUT_MS) {
    clear_state();  // a crashed host never leaves a false alarm lit
    blanked = true;
  }
  poll_buttons(now);
  if (now - last_render_ms >= RENDER_INTERVAL_MS && decoder.idle() && Serial.available() == 0) {
    last_render_ms = now;
    render(now);
  }
}
