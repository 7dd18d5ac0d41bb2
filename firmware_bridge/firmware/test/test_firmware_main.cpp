// Runs src/main.cpp (the Arduino sketch) on the host with the stubs in host_stubs/:
// boot -> HELLO, SET_LEDS -> ACK and pixels lit, bad frame -> NACK, silence -> blanking.
//   g++ -std=c++11 -Itest/host_stubs -Iinclude test/test_firmware_main.cpp -o t && ./t
#include <cstdio>
#include <vector>

#include "../src/main.cpp"

static int failures = 0;
#define EXPECT(cond, what) do { if (!(cond)) { ++failures; std::printf("FAIL %s\n", what); } } while (0)

static std::vector<std::vector<uint8_t> > frames_out(ledproto::Decoder& dec) {
  std::vector<std::vector<uint8_t> > out;
  for (size_t i = 0; i < Serial.tx.size(); ++i) {
    if (dec.feed(Serial.tx[i]) == ledproto::kFrame) {
      std::vector<uint8_t> f;
      f.push_back(dec.type());
      f.push_back(dec.seq());
      f.insert(f.end(), dec.payload(), dec.payload() + dec.payload_len());
      out.push_back(f);
    }
  }
  Serial.tx.clear();
  return out;
}

static void host_send(uint8_t type, uint8_t seq, const uint8_t* p, size_t n) {
  uint8_t buf[ledproto::kMaxEncoded + 2];
  size_t len = ledproto::encode_frame(type, seq, p, n, buf);
  for (size_t i = 0; i < len; ++i) Serial.rx.push_back(buf[i]);
}

static void run_for(uint32_t ms) {
  for (uint32_t i = 0; i < ms; ++i) { loop(); HostClock::now() += 1; }
}

int main() {
  ledproto::Decoder dec;
  setup();
  std::vector<std::vector<uint8_t> > out = frames_out(dec);
  EXPECT(out.size() == 1 && out[0][0] == ledproto::kHello, "boot sends one HELLO");
  EXPECT(out.size() == 1 && out[0][2] == 1 && out[0][6] == LED_COUNT, "HELLO: protocol 1, LED count");

  const uint8_t set[] = {2, 1, 200, 0, 0, ledproto::kSteady};
  host_send(ledproto::kSetLeds, 42, set, sizeof(set));
  run_for(30);
  out = frames_out(dec);
  EXPECT(out.size() == 1 && out[0][0] == ledproto::kAck && out[0][2] == 42 && out[0][3] == 0, "SET_LEDS is ACKed");
  EXPECT(FastLED.leds[2].r > 150 && FastLED.leds[1].r == 0, "LED 2 lit red, LED 1 dark");

  const uint8_t bad[] = {27, 2, 1, 1, 1, 1, 1, 1, 1, 1};
  host_send(ledproto::kSetLeds, 43, bad, sizeof(bad));
  run_for(5);
  out = frames_out(dec);
  EXPECT(out.size() == 1 && out[0][0] == ledproto::kNack && out[0][2] == 43 && out[0][3] == ledproto::kOutOfRange,
         "out-of-range SET_LEDS is NACKed");

  host_send(ledproto::kHeartbeat, 44, 0, 0);
  run_for(2900);
  out = frames_out(dec);
  EXPECT(out.size() == 1 && out[0][0] == ledproto::kAck && out[0][3] == 0, "heartbeat ACKed, not blanked");
  EXPECT(FastLED.leds[2].r > 150, "still lit 2.9 s after the last host frame");
  run_for(200);
  EXPECT(FastLED.leds[2].r == 0, "blanked 3 s after the last host frame");
  host_send(ledproto::kHeartbeat, 45, 0, 0);
  run_for(5);
  out = frames_out(dec);
  EXPECT(out.size() == 1 && out[0][0] == ledproto::kAck && (out[0][3] & ledproto::kAckFlagBlanked),
         "the next ACK carries the BLANKED flag");

  host_send(ledproto::kHelloRequest, 46, 0, 0);
  run_for(5);
  out = frames_out(dec);
  EXPECT(out.size() == 1 && out[0][0] == ledproto::kHello, "HELLO_REQUEST answered by HELLO");

  std::printf("firmware sketch on the host: %d failures\n", failures);
  return failures ? 1 : 0;
}
