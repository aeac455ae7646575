// libFuzzer target: the .tvir parser, and instantiating the fusion templates it keeps.
#include "fuzz/fuzz_util.h"
#include "ir/text_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace torchtv;
  return fuzz::guarded([&] {
    std::string text = fuzz::text(data, size);
    if (text.find('\0') != std::string::npos) return;  // parseModuleFile refuses NUL bytes first
    Module m = parseModule(text, "fuzz.tvir");
    (void)printModule(m);
  });
}
