// Minimal host stand-in for <Arduino.h>: just enough for tests/test_leds_firmware.py to
// compile src/main.cpp with g++ and run its setup()/loop() against scripted serial input.
// Not a simulator of the AVR; the real build is `pio run` (platformio.ini).
#ifndef HOST_STUB_ARDUINO_H
#define HOST_STUB_ARDUINO_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <deque>
#include <vector>

#define LOW 0
#define HIGH 1
#define INPUT_PULLUP 2

struct HostClock { static uint32_t& now() { static uint32_t t = 0; return t; } };
inline uint32_t millis() { return HostClock::now(); }
inline void pinMode(uint8_t, uint8_t) {}
inline int digitalRead(uint8_t) { return HIGH; }

struct HostSerial {
  std::deque<uint8_t> rx;
  std::vector<uint8_t> tx;
  void begin(unsigned long) {}
  int available() { return (int)rx.size(); }
  int read() { if (rx.empty()) return -1; uint8_t b = rx.front(); rx.pop_front(); return b; }
  size_t write(uint8_t b) { tx.push_back(b); return 1; }
  size_t write(const uint8_t* p, size_t n) { tx.insert(tx.end(), p, p + n); return n; }
};
inline HostSerial& host_serial() { static HostSerial s; return s; }
#define Serial host_serial()

#endif
