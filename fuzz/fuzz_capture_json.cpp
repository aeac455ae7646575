// libFuzzer target: the capture JSON reader (a graph file or a bundle).
#include <nlohmann/json.hpp>

#include "fuzz/fuzz_util.h"
#include "ir/text_format.h"
#include "src/import/capture_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace torchtv;
  return fuzz::guarded([&] {
    nlohmann::json j = parseJsonText(fuzz::text(data, size), "fuzz.json");
    std::unique_ptr<Module> m;
    if (j.is_object() && j.contains("graphs")) {
      m = readCaptureBundle(j, "fuzz.json");
    } else {
      OpResolver ops;
      m = std::make_unique<Module>();
      m->graphs.push_back(readCaptureGraph(j, "fuzz.json", ops));
    }
    (void)printModule(*m);
  });
}
