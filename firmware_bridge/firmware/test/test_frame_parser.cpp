// Host unit test of include/led_protocol.h against firmware_bridge/vectors/frames.txt,
// the vectors the Python codec is tested with. Plain C++11 + the standard library:
//   g++ -std=c++11 -Wall -Wextra -Werror -Iinclude test/test_frame_parser.cpp -o t && ./t VECTORS
// Exit code 0 when every check passes; prints one line per failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "led_protocol.h"

using namespace ledproto;

static int failures = 0;
static int checks = 0;

#define CHECK(cond, what)                                              \
  do {                                                                 \
    ++checks;                                                          \
    if (!(cond)) {                                                     \
      ++failures;                                                      \
      std::printf("FAIL %s:%d %s\n", __FILE__, __LINE__, (what).c_str()); \
    }                                                                  \
  } while (0)

static std::vector<uint8_t> unhex(const std::string& s) {
  std::vector<uint8_t> out;
  if (s == "-") return out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) out.push_back((uint8_t)std::strtoul(s.substr(i, 2).c_str(), 0, 16));
  return out;
}

static void test_vectors(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::printf("FAIL cannot open %s\n", path);
    ++failures;
    return;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line.substr(0, line.find("  #")));
    std::string kind, wire_hex;
    fields >> kind >> wire_hex;
    std::vector<uint8_t> wire = unhex(wire_hex);
    Decoder dec;
    std::vector<FeedResult> results;
    uint8_t type = 0, seq = 0;
    std::vector<uint8_t> payload;
    for (size_t i = 0; i < wire.size(); ++i) {
      FeedResult r = dec.feed(wire[i]);
      if (r == kNone) continue;
      results.push_back(r);
      if (r == kFrame) {
        type = dec.type();
        seq = dec.seq();
        payload.assign(dec.payload(), dec.payload() + dec.payload_len());
      }
    }
    ++n;
    if (kind == "valid") {
      std::string t, s, p;
      fields >> t >> s >> p;
      CHECK(results.size() == 1 && results[0] == kFrame, "valid vector decodes: " + line);
      CHECK(type == unhex(t)[0] && seq == unhex(s)[0] && payload == unhex(p), "fields: " + line);
      std::vector<uint8_t> want_payload = unhex(p);
      uint8_t out[kMaxEncoded + 2];
      size_t len = encode_frame(unhex(t)[0], unhex(s)[0], want_payload.data(), want_payload.size(), out);
      CHECK(std::vector<uint8_t>(out, out + len) == wire, "encode gives the wire bytes: " + line);
    } else {
      std::string reason;
      fields >> reason;
      CHECK(results.size() == 1 && std::string(feed_result_name(results[0])) == reason,
            "corrupt vector dropped as " + reason + ": " + line);
    }
  }
  CHECK(n > 100, std::string("vector file has more than 100 vectors"));
  std::printf("%d vectors\n", n);
}

static void test_crc_and_stream() {
  const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  CHECK(crc16(check, 9) == 0x29B1, std::string("CRC-16/CCITT-FALSE check value"));
  // Garbage, then a frame split over several feeds, then a frame right after: two frames.
  uint8_t a[kMaxEncoded + 2], b[kMaxEncoded + 2];
  const uint8_t pay[] = {0, 1, 255, 0, 0, 2};
  size_t la = encode_frame(kSetLeds, 7, pay, sizeof(pay), a);
  size_t lb = encode_frame(kHeartbeat, 8, 0, 0, b);
  std::vector<uint8_t> stream;
  const uint8_t junk[] = {0x13, 0x37, 0x00, 0x00};
  stream.insert(stream.end(), junk, junk + 4);
  stream.insert(stream.end(), a, a + la);
  stream.insert(stream.end(), b, b + lb);
  Decoder dec;
  int frames = 0, errors = 0;
  for (size_t i = 0; i < stream.size(); ++i) {
    FeedResult r = dec.feed(stream[i]);
    if (r == kFrame) {
      ++frames;
      CHECK(dec.seq() == (frames == 1 ? 7 : 8), std::string("stream order"));
    } else if (r != kNone) {
      ++errors;
    }
  }
  CHECK(frames == 2 && errors == 1, std::string("stream: two frames after one bad fragment"));
}

static void test_set_leds() {
  Led leds[4];
  std::memset(leds, 0, sizeof(leds));
  const uint8_t ok[] = {1, 2, 255, 0, 0, 2, 0, 0, 255, 3};
  CHECK(apply_set_leds(ok, sizeof(ok), leds, 4) == 0, std::string("SET_LEDS applies"));
  CHECK(leds[1].r == 255 && leds[1].pattern == kBlink && leds[2].b == 255 && leds[2].pattern == kPulse &&
            leds[0].pattern == kOff && leds[3].pattern == kOff,
        std::string("SET_LEDS sets LEDs 1 and 2 only"));
  const uint8_t range[] = {3, 2, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(apply_set_leds(range, sizeof(range), leds, 4) == kOutOfRange, std::string("out of range"));
  const uint8_t pattern[] = {0, 1, 1, 1, 1, 9};
  CHECK(apply_set_leds(pattern, sizeof(pattern), leds, 4) == kBadPattern, std::string("bad pattern"));
  const uint8_t shortp[] = {0, 2, 1, 1, 1, 1};
  CHECK(apply_set_leds(shortp, sizeof(shortp), leds, 4) == kBadLength, std::string("bad length"));
  CHECK(leds[1].r == 255 && leds[1].pattern == kBlink, std::string("refused frames change nothing"));
  CHECK(pattern_level(kBlink, 100) == 255 && pattern_level(kBlink, 300) == 0, std::string("blink 2 Hz"));
  CHECK(pattern_level(kPulse, 0) < pattern_level(kPulse, 500), std::string("pulse rises"));
  CHECK(pattern_level(kOff, 0) == 0 && pattern_level(kSteady, 123) == 255, std::string("off and steady"));
}

static void test_random_bytes() {
  // Random streams never crash the decoder (the test runs under -fsanitize=address,undefined).
  uint32_t x = 2463534242u;
  Decoder dec;
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    uint8_t byte = (x % 7 == 0) ? 0 : (uint8_t)(x >> 8);
    if (dec.feed(byte) == kFrame) {
      ++accepted;
      CHECK(dec.payload_len() <= kMaxPayload, std::string("accepted payload fits"));
    }
  }
  std::printf("random stream: %d frames accepted by chance\n", accepted);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: %s VECTORS_FILE\n", argv[0]);
    return 2;
  }
  test_vectors(argv[1]);
  test_crc_and_stream();
  test_set_leds();
  test_random_bytes();
  std::printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
