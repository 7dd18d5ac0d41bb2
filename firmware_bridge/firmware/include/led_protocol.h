// LED board protocol (firmware_bridge/PROTOCOL.md): frame parser and builder.
//
// Arduino-independent (standard C++11, no heap, no Arduino headers) so that the host's
// g++ compiles it for the unit test (test/test_frame_parser.cpp) against the same
// vectors as the Python codec (firmware_bridge/vectors/frames.txt).
//
//   wire = COBS(type:u8 seq:u8 payload:0..250 crc16:u16be) 0x00
//   crc  = CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over type, seq, payload
#ifndef LED_PROTOCOL_H
#define LED_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace ledproto {

const size_t kMaxPayload = 250;
const size_t kMaxBody = kMaxPayload + 4;
const size_t kMaxEncoded = 256;

enum MsgType {
  kHello = 0x01, kSetLeds = 0x02, kClear = 0x03, kHeartbeat = 0x04, kAck = 0x05,
  kNack = 0x06, kButton = 0x07, kLog = 0x08, kHelloRequest = 0x09
};
enum Pattern { kOff = 0, kSteady = 1, kBlink = 2, kPulse = 3 };
enum NackReason { kUnknownType = 1, kBadLength = 2, kOutOfRange = 3, kBadPattern = 4 };
const uint8_t kAckFlagBlanked = 0x01;

// Result of feeding one byte into the decoder.
enum FeedResult {
  kNone = 0,       // frame not complete yet (or an empty frame was skipped)
  kFrame,          // a valid frame is ready: see Decoder::type(), seq(), payload()
  kErrCobs,        // invalid COBS
  kErrShort,       // body shorter than 4 bytes
  kErrLong,        // body longer than 254 bytes
  kErrCrc,         // CRC mismatch
  kErrOverflow     // more than 256 encoded bytes before a delimiter
};

inline const char* feed_result_name(FeedResult r) {
  switch (r) {
    case kFrame: return "valid";
    case kErrCobs: return "cobs";
    case kErrShort: return "short";
    case kErrLong: return "long";
    case kErrCrc: return "crc";
    case kErrOverflow: return "overflow";
    default: return "none";
  }
}

// CRC-16/CCITT-FALSE, bitwise (no table: saves 512 bytes of AVR flash/RAM).
inline uint16_t crc16(const uint8_t* data, size_t len, uint16_t crc = 0xFFFF) {
  for (size_t i = 0; i < len; ++i) {
    crc ^= (uint16_t)data[i] << 8;
    for (int b = 0; b < 8; ++b) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
  }
  return crc;
}

// COBS-decode `in` (no delimiter) into `out` (capacity `cap`); returns the decoded length
// or -1 when the input is not valid COBS or does not fit. Same acceptance as Python's `cobs`.
inline int cobs_decode(const uint8_t* in, size_t len, uint8_t* out, size_t cap) {
  size_t i = 0, o = 0;
  while (i < len) {
    uint8_t code = in[i++];
    if (code == 0) return -1;
    size_t n = (size_t)code - 1;
    if (i + n > len) return -1;
    if (o + n > cap) return -1;
    memcpy(out + o, in + i, n);
    i += n;
    o += n;
    if (code != 0xFF && i < len) {
      if (o >= cap) return -1;
      out[o++] = 0;
    }
  }
  return (int)o;
}

// COBS-encode `len` bytes into `out` (needs len + len/254 + 1 bytes); returns the length.
// Like Python's `cobs`, no code byte follows a final full (0xFF) block.
inline size_t cobs_encode(const uint8_t* in, size_t len, uint8_t* out) {
  size_t code_at = 0, o = 1;
  uint8_t code = 1;
  bool open = true;
  for (size_t i = 0; i < len; ++i) {
    if (in[i] == 0) {
      out[code_at] = code;
      code_at = o++;
      code = 1;
    } else {
      out[o++] = in[i];
      if (++code == 0xFF) {
        out[code_at] = code;
        code = 1;
        if (i + 1 < len) {
          code_at = o++;
        } else {
          open = false;
        }
      }
    }
  }
  if (open) out[code_at] = code;
  return o;
}

// Build one frame (COBS + trailing 0x00) into `out` (>= kMaxEncoded + 2 bytes); returns
// its length, or 0 when the payload is too long.
inline size_t encode_frame(uint8_t type, uint8_t seq, const uint8_t* payload, size_t len,
                           uint8_t* out) {
  if (len > kMaxPayload) return 0;
  uint8_t body[kMaxBody];
  body[0] = type;
  body[1] = seq;
  if (len) memcpy(body + 2, payload, len);
  uint16_t crc = crc16(body, len + 2);
  body[len + 2] = (uint8_t)(crc >> 8);
  body[len + 3] = (uint8_t)(crc & 0xFF);
  size_t n = cobs_encode(body, len + 4, out);
  out[n++] = 0;
  return n;
}

// Byte-at-a-time frame decoder: feed() every received byte; on kFrame the frame is
// available until the next feed(). Needs ~512 bytes of RAM.
class Decoder {
 public:
  Decoder() : len_(0), overflow_(false), body_len_(0) {}

  FeedResult feed(uint8_t byte) {
    if (byte != 0) {
      if (overflow_) return kNone;
      if (len_ >= kMaxEncoded) {
        overflow_ = true;
        len_ = 0;
        return kErrOverflow;
      }
      buf_[len_++] = byte;
      return kNone;
    }
    if (overflow_) {
      overflow_ = false;
      return kNone;
    }
    if (len_ == 0) return kNone;
    size_t n = len_;
    len_ = 0;
    int m = cobs_decode(buf_, n, body_, sizeof(body_));
    if (m < 0) return kErrCobs;
    if (m < 4) return kErrShort;
    if ((size_t)m > kMaxBody) return kErrLong;
    uint16_t want = (uint16_t)((body_[m - 2] << 8) | body_[m - 1]);
    if (crc16(body_, (size_t)m - 2) != want) return kErrCrc;
    body_len_ = (size_t)m;
    return kFrame;
  }

  void reset() { len_ = 0; overflow_ = false; }
  // No partial frame buffered (the firmware renders only then: FastLED.show() blocks
  // interrupts on AVR and would drop bytes of a frame arriving meanwhile).
  bool idle() const { return len_ == 0 && !overflow_; }
  uint8_t type() const { return body_[0]; }
  uint8_t seq() const { return body_[1]; }
  const uint8_t* payload() const { return body_ + 2; }
  size_t payload_len() const { return body_len_ - 4; }

 private:
  uint8_t buf_[kMaxEncoded];
  size_t len_;
  bool overflow_;
  uint8_t body_[kMaxBody + 2];
  size_t body_len_;
};

// One LED as the board stores it.
struct Led {
  uint8_t r, g, b, pattern;
};

// Apply a SET_LEDS payload to `leds` (count `n`). Returns 0 on success or a NackReason;
// on failure nothing changes.
inline uint8_t apply_set_leds(const uint8_t* p, size_t len, Led* leds, size_t n) {
  if (len < 2 || len != 2 + 4 * (size_t)p[1]) return kBadLength;
  size_t start = p[0], count = p[1];
  if (start + count > n) return kOutOfRange;
  for (size_t i = 0; i < count; ++i)
    if (p[2 + 4 * i + 3] > kPulse) return kBadPattern;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* q = p + 2 + 4 * i;
    leds[start + i].r = q[0];
    leds[start + i].g = q[1];
    leds[start + i].b = q[2];
    leds[start + i].pattern = q[3];
  }
  return 0;
}

// Brightness 0..255 of a pattern at `ms` milliseconds (blink 2 Hz, pulse 1 s triangle
// between 10 % and 100 %).
inline uint8_t pattern_level(uint8_t pattern, uint32_t ms) {
  switch (pattern) {
    case kSteady: return 255;
    case kBlink: return ((ms / 250) % 2 == 0) ? 255 : 0;
    case kPulse: {
      uint32_t t = ms % 1000;
      uint32_t tri = t < 500 ? t : 1000 - t;           // 0..500
      return (uint8_t)(25 + (tri * 230) / 500);         // 25..255
    }
    default: return 0;
  }
}

}  // namespace ledproto

#endif  // LED_PROTOCOL_H
