// Every bundled fusion definition parses, instantiates at two sets of shapes,
// type-checks, and is proven equal to the op's own semantics (src/sem).
#include <doctest/doctest.h>

#include "src/sem/semantics.h"

#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "ir/rewrite.h"
#include "ir/text_format.h"
#include "src/normalize/normalize.h"
#include "src/verify/check.h"

using namespace torchtv;

namespace {

struct Calls {
  Graph g{"calls"};
  OpResolver ops;
  Value *in(const std::string &name, Shape s, DType d = DType::F32) { return g.addInput(name, {d, std::move(s)}); }
  Node *call(const std::string &op, std::vector<Value *> ins, AttributeMap attrs = {}) {
    NodeSpec spec;
    spec.op = op;
    spec.inputs = std::move(ins);
    spec.attrs = std::move(attrs);
    return buildNode(g, ops, spec);
  }
  // An op without a shape rule (conv2d, batch_norm ...): its result types given.
  Node *call(const std::string &op, std::vector<Value *> ins, AttributeMap attrs, std::vector<TensorType> types) {
    NodeSpec spec;
    spec.op = op;
    spec.inputs = std::move(ins);
    spec.attrs = std::move(attrs);
    spec.declaredTypes = std::move(types);
    return buildNode(g, ops, spec);
  }
};

// One call of each prims definition (fusions/prims.tvir). Prims have no shape
// rules: every result type is given.
void addPrimsCalls(Calls &c, int64_t N, int64_t D) {
  Value *x = c.in("px", {N, D}), *y = c.in("py", {N, D}), *k = c.in("pk", {N, D}, DType::I64);
  Value *m = c.in("pm", {N, D}, DType::Bool);
  TensorType f{DType::F32, {N, D}}, i{DType::I64, {N, D}}, bo{DType::Bool, {N, D}}, row{DType::F32, {N}};
  for (const char *op : {"abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i0", "bessel_i0e",
                         "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "ceil", "cos", "cosh", "digamma", "erf",
                         "erf_inv", "erfc", "exp", "exp2", "expm1", "floor", "lgamma", "log", "log10", "log1p", "log2",
                         "neg", "reciprocal", "round", "rsqrt", "sign", "sin", "sinh", "spherical_bessel_j0", "sqrt",
                         "tan", "tanh", "trunc", "view_of", "device_put"})
    c.call(std::string("prims::") + op, {x}, op == std::string("device_put") ? AttributeMap{{"device", "cpu"}} : AttributeMap{}, {f});
  for (const char *op : {"isfinite", "signbit"}) c.call(std::string("prims::") + op, {x}, {}, {bo});
  c.call("prims::bitwise_not", {k}, {}, {i});
  for (const char *op : {"add", "atan2", "fmax", "fmin", "fmod", "hypot", "igamma", "igammac", "maximum", "minimum",
                         "mul", "nextafter", "pow", "remainder", "sub", "zeta"})
    c.call(std::string("prims::") + op, {x, y}, {}, {f});
  for (const char *op : {"eq", "ge", "gt", "le", "lt", "ne"}) c.call(std::string("prims::") + op, {x, y}, {}, {bo});
  for (const char *op : {"bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "shift_left", "shift_right_arithmetic"})
    c.call(std::string("prims::") + op, {k, k}, {}, {i});
  for (DType d : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::U8, DType::I8, DType::I16, DType::I32,
                  DType::I64}) {
    Value *a = c.in("pdiv" + std::string(dtypeName(d)), {N, D}, d);
    c.call("prims::div", {a, a}, {}, {a->type});
  }
  c.call("prims::where", {m, x, y}, {}, {f});
  for (const char *op : {"sum", "amax", "amin"}) {
    c.call(std::string("prims::") + op, {x}, {{"dims", std::vector<int64_t>{}}}, {f});
    c.call(std::string("prims::") + op, {x}, {{"dims", std::vector<int64_t>{1}}}, {row});
  }
  c.call("prims::var", {x}, {{"dims", std::vector<int64_t>{1}}, {"correction", 1}}, {row});
  c.call("prims::transpose", {x}, {{"permutation", std::vector<int64_t>{1, 0}}}, {{DType::F32, {D, N}}});
  c.call("prims::rev", {x}, {{"dims", std::vector<int64_t>{0}}}, {f});
  c.call("prims::slice_in_dim", {x}, {{"start_index", 0}, {"limit_index", 1}, {"stride", 1}, {"axis", 0}},
         {{DType::F32, {1, D}}});
  c.call("prims::squeeze", {x}, {{"dimensions", std::vector<int64_t>{}}}, {f});
  c.call("prims::reshape", {x}, {{"shape", std::vector<int64_t>{D, N}}}, {{DType::F32, {D, N}}});
  c.call("prims::to_dtype", {x}, {{"dtype", DType::F64}}, {{DType::F64, {N, D}}});
  c.call("prims::fill", {x}, {{"value", 2.0}}, {f});
  c.call("prims::scalar_tensor", {}, {{"s", 1.5}, {"dtype", DType::F32}, {"device", "cpu"}}, {{DType::F32, {}}});
}

// One call of every defined op and rank case, at sizes N, D, B, M.
std::unique_ptr<Calls> buildCalls(int64_t N, int64_t D, int64_t B, int64_t M) {
  auto c = std::make_unique<Calls>();
  Value *x = c->in("x", {N, D}), *w = c->in("w", {D}), *b = c->in("b", {D});
  Value *x3 = c->in("x3", {B, N, D}), *w2 = c->in("w2", {N, D}), *b2 = c->in("b2", {N, D});
  Value *wl = c->in("wl", {M, D}), *bl = c->in("bl", {M}), *v = c->in("v", {D});
  Value *m = c->in("m", {D, M}), *xb = c->in("xb", {B, D, M}), *am = c->in("am", {N, M});
  auto eps = Attribute(1e-5);
  std::vector<int64_t> d1{D}, nd{N, D}, mask{1, 1, 1};
  Node *ln = c->call("aten::native_layer_norm", {x, w, b}, {{"normalized_shape", d1}, {"eps", eps}});
  c->call("aten::native_layer_norm", {x, nullptr, nullptr}, {{"normalized_shape", d1}, {"eps", eps}});
  c->call("aten::native_layer_norm", {x3, w2, b2}, {{"normalized_shape", nd}, {"eps", eps}});
  c->call("aten::native_layer_norm_backward", {x, x, ln->outputs[1], ln->outputs[2], w, b},
          {{"normalized_shape", d1}, {"output_mask", mask}});
  Node *l3 = c->call("aten::native_layer_norm", {x3, w, b}, {{"normalized_shape", d1}, {"eps", eps}});
  c->call("aten::native_layer_norm_backward", {x3, x3, l3->outputs[1], l3->outputs[2], w, b},
          {{"normalized_shape", d1}, {"output_mask", mask}});
  Node *sm = c->call("aten::_softmax", {x}, {{"dim", -1}, {"half_to_float", false}});
  Node *lsm = c->call("aten::_log_softmax", {x3}, {{"dim", 1}, {"half_to_float", false}});
  c->call("aten::_softmax_backward_data", {x, sm->output()}, {{"dim", -1}, {"input_dtype", DType::F32}});
  c->call("aten::_softmax_backward_data", {x3, x3}, {{"dim", 0}, {"input_dtype", DType::F32}});
  c->call("aten::_log_softmax_backward_data", {x, x}, {{"dim", 1}, {"input_dtype", DType::F32}});
  c->call("aten::_log_softmax_backward_data", {x3, lsm->output()}, {{"dim", 1}, {"input_dtype", DType::F32}});
  for (const char *approx : {"none", "tanh"}) {
    c->call("aten::gelu", {x}, {{"approximate", approx}});
    c->call("aten::gelu_backward", {x, x}, {{"approximate", approx}});
  }
  c->call("aten::silu", {x});
  c->call("aten::silu_backward", {x, x});
  c->call("aten::sigmoid_backward", {x, x});
  c->call("aten::tanh_backward", {x, x});
  c->call("aten::threshold_backward", {x, x}, {{"threshold", 0}});
  // The composites that torch.export keeps (fusions/convolution.tvir, layer_norm.tvir).
  c->call("aten::layer_norm", {x3, w, b}, {{"normalized_shape", d1}, {"eps", eps}});
  c->call("aten::layer_norm", {x, nullptr, nullptr}, {{"normalized_shape", d1}, {"eps", eps}});
  Value *xi = c->in("xi", {B, 2, D, D}), *cw = c->in("cw", {3, 2, 3, 3}), *c3 = c->in("c3", {3});
  Value *x1 = c->in("x1", {B, 2, D}), *cw1 = c->in("cw1", {3, 2, 3}), *c2 = c->in("c2", {2});
  std::vector<int64_t> one{1, 1}, two{2, 2};
  for (Value *bias : {c3, static_cast<Value *>(nullptr)}) {
    c->call("aten::conv2d", {xi, cw, bias}, {{"padding", one}}, {{DType::F32, {B, 3, D, D}}});
    c->call("aten::conv1d", {x1, cw1, bias}, {{"padding", std::vector<int64_t>{1}}}, {{DType::F32, {B, 3, D}}});
  }
  AttributeMap bn{{"training", false}, {"momentum", 0.1}, {"eps", eps}, {"cudnn_enabled", false}};
  c->call("aten::batch_norm", {xi, c2, c2, c2, c2}, bn, {xi->type});
  c->call("aten::batch_norm", {x1, c2, c2, c2, c2}, bn, {x1->type});
  c->call("aten::max_pool2d", {xi}, {{"kernel_size", two}, {"stride", two}}, {{DType::F32, {B, 2, D / 2, D / 2}}});
  c->call("aten::adaptive_avg_pool2d", {xi}, {{"output_size", one}}, {{DType::F32, {B, 2, 1, 1}}});
  c->call("aten::flatten.using_ints", {xi}, {{"start_dim", 1}}, {{DType::F32, {B, 2 * D * D}}});
  c->call("aten::linear", {x, wl, bl});
  c->call("aten::linear", {x3, wl, nullptr});
  c->call("aten::addmm", {am, x, m});
  c->call("aten::matmul", {v, v});
  c->call("aten::matmul", {x, m});
  c->call("aten::matmul", {x, v});
  c->call("aten::matmul", {v, m});
  c->call("aten::matmul", {x3, m});
  c->call("aten::matmul", {x3, xb});
  c->call("aten::mv", {am, bl}, {}, {{DType::F32, {N}}});
  for (int64_t ord : {1, 2}) {
    c->call("aten::linalg_vector_norm", {x}, {{"ord", ord}, {"dim", std::vector<int64_t>{1}}, {"keepdim", false}, {"dtype", Attribute()}},
            {{DType::F32, {N}}});
    c->call("aten::linalg_vector_norm", {x3}, {{"ord", ord}, {"dim", Attribute()}, {"keepdim", true}, {"dtype", Attribute()}},
            {{DType::F32, {1, 1, 1}}});
  }
  for (int64_t r = 0; r < 3; ++r) {
    Node *loss = c->call("aten::mse_loss", {x, b}, {{"reduction", r}});
    c->call("aten::mse_loss_backward", {r == 0 ? x : loss->output(), x, b}, {{"reduction", r}});
  }
  // Index ops (D classes / M embedding rows): nll_loss, embedding.
  Value *t = c->in("t", {N}, DType::I64), *tb = c->in("tb", {B, N}, DType::I64), *gn = c->in("gn", {N});
  Value *s0 = c->in("s0", {}), *tw = c->in("tw", {}), *g3 = c->in("g3", {B, N, D});
  for (int64_t r = 0; r < 3; ++r)
    for (Value *wt : {static_cast<Value *>(nullptr), w}) {
      AttributeMap a{{"reduction", r}, {"ignore_index", r == 1 ? 1 : -100}};
      c->call("aten::nll_loss_forward", {x, t, wt}, a);
      c->call("aten::nll_loss_backward", {r == 0 ? gn : s0, x, t, wt, tw}, a);
    }
  c->call("aten::embedding", {wl, t}, {{"padding_idx", -1}});
  c->call("aten::embedding", {wl, tb}, {{"padding_idx", -1}});
  c->call("aten::embedding_dense_backward", {x, t},
          {{"num_weights", M}, {"padding_idx", -1}, {"scale_grad_by_freq", false}});
  c->call("aten::embedding_dense_backward", {g3, tb},
          {{"num_weights", M}, {"padding_idx", 1}, {"scale_grad_by_freq", false}});
  // scaled_dot_product_attention at ranks 3 and 4, N queries, M keys (N != M), E = D.
  for (bool heads : {false, true}) {
    auto shape = [&](Shape tail) {
      Shape s{B};
      if (heads) s.push_back(2);
      s.insert(s.end(), tail.begin(), tail.end());
      return s;
    };
    std::string r = heads ? "4" : "3";
    Value *q = c->in("q" + r, shape({N, D})), *k = c->in("k" + r, shape({M, D})), *va = c->in("va" + r, shape({M, B}));
    Value *keep = c->in("keep" + r, {N, M}, DType::Bool), *bias = c->in("bias" + r, shape({N, M}));
    auto sdpa = [&](Value *mask, bool causal, Attribute scale) {
      c->call("aten::scaled_dot_product_attention", {q, k, va, mask}, {{"is_causal", causal}, {"scale", scale}});
    };
    for (Attribute scale : {Attribute(NoneValue{}), Attribute(0.25)}) {
      sdpa(nullptr, false, scale);
      sdpa(nullptr, true, scale);
      sdpa(keep, false, scale);
      sdpa(bias, false, scale);
    }
  }
  addPrimsCalls(*c, N, D);
  return c;
}

// The generated definitions (fusions/decompositions.tvir) are instantiated by
// the semantics audit's calls of them (tests/audit/decomposition_cases.txt, at
// f32 and each of a case's shapes), which also evaluates them against LibTorch
// (Note [Auditing definitions] in tests/audit/semantics_audit.cpp).
std::vector<std::unique_ptr<Module>> generatedDefinitionCalls() {
  std::vector<std::unique_ptr<Module>> out;
  std::string text = readFile(std::string(TORCHTV_SOURCE_DIR) + "/tests/audit/decomposition_cases.txt");
  auto replaceAll = [](std::string s, const std::string &from, const std::string &to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
  };
  for (size_t at = text.find("\ncase "); at != std::string::npos; at = text.find("\ncase ", at + 1)) {
    size_t eol = text.find('\n', at + 1), end = text.find("\n}", eol);
    std::istringstream head(text.substr(at + 6, eol - at - 6));
    std::string op, dtypes, shapes;
    head >> op >> dtypes >> shapes;
    std::string graph = text.substr(eol + 1, end + 2 - eol - 1);
    std::istringstream each(shapes);
    for (std::string shape; std::getline(each, shape, ';');)
      out.push_back(std::make_unique<Module>(
          parseModule("graph @g" + replaceAll(replaceAll(graph, "$S", shape == "-" ? "" : shape), "$T", "f32") + "\n",
                      "decomposition_cases.txt(" + op + ")")));
  }
  return out;
}

}  // namespace

TEST_CASE("every bundled definition instantiates at two shapes and type-checks") {
  const FusionLibrary &lib = bundledFusions();
  REQUIRE(lib.size() > 0);
  std::map<const GraphTemplate *, int> uses;
  std::vector<const Graph *> graphs;
  auto generated = generatedDefinitionCalls();
  for (const auto &m : generated) graphs.push_back(m->find("g"));
  std::vector<std::unique_ptr<Calls>> built;
  for (auto sizes : {std::vector<int64_t>{4, 8, 2, 3}, std::vector<int64_t>{5, 6, 3, 7}}) {
    built.push_back(buildCalls(sizes[0], sizes[1], sizes[2], sizes[3]));
    graphs.push_back(&built.back()->g);
  }
  for (const Graph *graph : graphs) {
    for (const auto &n : graph->nodes()) {
      const auto *defs = lib.find(n->op);
      REQUIRE_MESSAGE(defs, "no definition of " << n->op);
      TemplateCall call;
      call.attrs = &n->attrs;
      for (const Value *v : n->inputs) call.operands.push_back(v ? &v->type : nullptr);
      for (const Value *v : n->outputs) call.results.push_back(v->type);
      bool matched = false;
      for (const FusionDefinition &d : *defs) {
        try {
          auto g = instantiateTemplate(d.tmpl, call, lib.resolver());  // InputError fails the test
          REQUIRE(g->outputs().size() == n->outputs.size());
          for (size_t i = 0; i < n->outputs.size(); ++i) CHECK(g->outputs()[i]->type == n->outputs[i]->type);
          uses[&d.tmpl]++;
          matched = true;
          break;
        } catch (const TemplateMismatch &) {
        }
      }
      CHECK_MESSAGE(matched, "no definition matches this call of " << n->op);
    }
  }
  for (const std::string &op : lib.definedOps())
    for (const FusionDefinition &d : *lib.find(op))
      CHECK_MESSAGE(uses[&d.tmpl] >= 2, d.tmpl.path << ":" << d.tmpl.line << " (" << op
                                                       << ") is not instantiated at two shapes by the test");
}

TEST_CASE("expanding every call leaves no defined op, and the prover proves every definition") {
  const FusionLibrary &lib = bundledFusions();
  auto c = buildCalls(4, 8, 2, 3);
  // One graph per call, so that each definition is checked on its own.
  int unproven = 0;
  for (const auto &n : c->g.nodes()) {
    Graph call("call");
    std::vector<Value *> ins;
    for (const Value *v : c->g.inputs()) ins.push_back(call.addInput(v->name, v->type));
    std::unordered_map<const Value *, Value *> env;
    for (size_t i = 0; i < ins.size(); ++i) env[c->g.inputs()[i]] = ins[i];
    // Operands produced by other calls become inputs of their own.
    std::vector<Value *> operands;
    for (const Value *v : n->inputs) {
      if (!v) operands.push_back(nullptr);
      else if (env.count(v)) operands.push_back(env[v]);
      else operands.push_back(env[v] = call.addInput(call.freshName(v->name), v->type));
    }
    // Multi-output layer norm: its goldens (tests/golden) prove it.
    if (n->outputs.size() > 1 && n->op != "aten::nll_loss_forward") continue;
    // A prim has no semantics of its own: its definition is its semantics
    // (Note [prims] in fusions/prims.tvir), which tests/oracle/run_refs_oracle.py
    // checks against torch._refs.
    if (n->op.rfind("prims::", 0) == 0) continue;
    // Likewise an ATen op without semantics of its own (mv, linalg_vector_norm):
    // tests/oracle/run_decomp_oracle.py checks its definition against torch._decomp.
    if (n->op.rfind("aten::", 0) == 0 && !sem::hasSemantics(n->op)) continue;
    std::vector<std::pair<std::string, TensorType>> outs;
    for (size_t i = 0; i < n->outputs.size(); ++i) outs.push_back({"y" + std::to_string(i), n->outputs[i]->type});
    Node *k = call.addNode(n->op, n->schema, operands, n->attrs, outs);
    for (size_t i = 0; i < k->outputs.size(); ++i) call.addOutput(k->outputs[i], outs[i].first);
    auto expanded = cloneGraph(call);
    NormalizeOptions opts;
    NormalizeResult r = normalizeGraph(*expanded, lib, opts);
    // An op left behind is one no definition matches (matmul of rank 4 has
    // semantics of its own); a definition that still matches must have been used.
    for (const auto &e : expanded->nodes()) CHECK_MESSAGE(!lib.instantiate(*e), n->op << " left " << e->op);
    CheckOptions co;
    co.normalization = Normalization::Off;
    CheckResult res = checkGraphs(call, *expanded, co);
    CHECK_MESSAGE(res.verdict != Verdict::NotEquivalent, n->op << " refuted: " << res.reason);
    // Every definition must prove (an expansion counts as level real at most).
    CHECK_MESSAGE(res.verdict == Verdict::Equivalent, n->op << " is not proven: " << res.reason);
    if (res.verdict != Verdict::Equivalent) ++unproven;
    (void)r;
  }
  CHECK(unproven == 0);
}
