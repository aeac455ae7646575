// libFuzzer target: the TorchScript importer's handling of graphs. The input
// is TorchScript IR text, parsed by LibTorch's parseIR and handed to
// importTorchScriptGraph: the same mapping `torchtv check model.pt` runs after
// LibTorch has loaded, frozen and inlined the module. LibTorch's own archive
// deserializer (torch::jit::load) is not fuzzed here (docs/trust.md).
//
// The graph inputs after `self` are typed from their IR types when those are
// complete (Float(3, 8, ...)), else f32[2, 3]; the type goes through
// parseTensorType, as `--inputs` does, so its caps apply.
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/irparser.h>

#include "fuzz/fuzz_util.h"
#include "ir/text_format.h"
#include "src/torch/torch_dtype.h"
#include "src/torch/torch_impl.h"

namespace {

std::string typeText(const torch::jit::Value *v) {
  auto t = v->type()->cast<c10::TensorType>();
  if (!t || !t->scalarType() || !t->sizes().concrete_sizes()) return "f32[2, 3]";
  auto dtype = torchtv::fromTorchDType(*t->scalarType());
  if (!dtype) return "f32[2, 3]";
  std::string text = std::string(torchtv::dtypeName(*dtype)) + "[";
  const auto sizes = *t->sizes().concrete_sizes();
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace torchtv;
  return fuzz::guarded([&] {
    auto graph = std::make_shared<torch::jit::Graph>();
    torch::jit::parseIR(fuzz::text(data, size), graph.get(), /*parse_tensor_constants=*/true);
    std::vector<TensorType> inputs;
    for (size_t i = 1; i < graph->inputs().size(); ++i) inputs.push_back(parseTensorType(typeText(graph->inputs()[i])));
    auto m = torch_impl::importTorchScriptGraph(*graph, "fuzz.pt", inputs);
    (void)printModule(*m);
  });
}
