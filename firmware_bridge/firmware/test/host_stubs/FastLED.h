// Minimal host stand-in for <FastLED.h> (see Arduino.h here).
#ifndef HOST_STUB_FASTLED_H
#define HOST_STUB_FASTLED_H
#include <stdint.h>

struct CRGB {
  uint8_t r, g, b;
  CRGB() : r(0), g(0), b(0) {}
  CRGB(uint8_t r_, uint8_t g_, uint8_t b_) : r(r_), g(g_), b(b_) {}
  CRGB& nscale8_video(uint8_t s) {
    r = (uint8_t)(r ? ((r * s) >> 8) + (s ? 1 : 0) : 0);
    g = (uint8_t)(g ? ((g * s) >> 8) + (s ? 1 : 0) : 0);
    b = (uint8_t)(b ? ((b * s) >> 8) + (s ? 1 : 0) : 0);
    return *this;
  }
};
enum EOrder { GRB };
struct WS2812B {};
struct HostFastLED {
  CRGB* leds = nullptr;
  int count = 0;
  int shows = 0;
  template <typename CHIPSET, int PIN, EOrder ORDER>
  HostFastLED& addLeds(CRGB* l, int n) { leds = l; count = n; return *this; }
  void setBrightness(uint8_t) {}
  void show() { ++shows; }
};
inline HostFastLED& host_fastled() { static HostFastLED f; return f; }
#define FastLED host_fastled()

#endif
