// libFuzzer target: the .pt2 reader after unzipping (the ExportedProgram JSON).
// Lifted constants are answered with the input's own bytes, so their decoding
// is fuzzed too.
#include "fuzz/fuzz_util.h"
#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/import/pt2.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace torchtv;
  return fuzz::guarded([&] {
    Pt2Archive a;
    a.path = "fuzz.pt2";
    a.modelJson = fuzz::text(data, size);
    a.readConstant = [&](const std::string &) { return fuzz::text(data, size); };
    auto m = importExportedProgram(a, nullptr);
    (void)printModule(*m);
  });
}
