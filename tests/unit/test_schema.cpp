#include <doctest/doctest.h>

#include "ir/builder.h"
#include "ir/diagnostic.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/schema.h"

using namespace torchtv;

TEST_CASE("ATen schemas parse into arguments with kinds and defaults") {
  OpSchema s = parseSchema(
      "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  CHECK(s.name == "aten::mean.dim");
  REQUIRE(s.args.size() == 4);
  CHECK(s.args[0].kind == ArgKind::Tensor);
  CHECK(s.args[1].kind == ArgKind::IntList);
  CHECK(s.args[1].optional);
  CHECK(!s.args[1].defaultValue);
  CHECK(s.args[2].defaultValue->str() == "false");
  CHECK(s.args[3].kwargOnly);
  CHECK(s.args[3].defaultValue->isNone());
  CHECK(s.numReturns == 1);
}

TEST_CASE("the default overload is dropped; tuple returns are counted") {
  OpSchema s = parseSchema(
      "aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
      "float eps) -> (Tensor, Tensor, Tensor)");
  CHECK(s.name == "aten::native_layer_norm");
  CHECK(s.numReturns == 3);
  CHECK(s.tensorArgs().size() == 3);
  CHECK(canonicalOpName("aten::relu", "default") == "aten::relu");
  CHECK(canonicalOpName("aten::add", "Tensor") == "aten::add.Tensor");
}

TEST_CASE("alias annotations, list defaults and enum defaults") {
  OpSchema s = parseSchema("aten::foo_(Tensor(a!) self, int[2] stride=1, int reduction=Mean, "
                           "float[] w=[0.5, 2], str mode=\"none\") -> Tensor(a!)");
  CHECK(s.mutatesInput());
  // Note [Fixed-length lists]: `int[2] stride=1` is [1, 1].
  CHECK(s.args[1].fixedLength == 2);
  CHECK(s.args[1].defaultValue->str() == "[1, 1]");
  CHECK(s.returnsAlias);
  CHECK(s.args[2].defaultValue->asInt() == 1);
  CHECK(s.args[3].defaultValue->str() == "[0.5, 2.0]");
  CHECK(s.args[4].defaultValue->asString() == "none");
  OpSchema list = parseSchema("aten::split(Tensor self, int size, int dim=0) -> Tensor[]");
  CHECK(list.returnsList);
  CHECK(!list.returnsAlias);
}

TEST_CASE("malformed schemas are input errors with a column") {
  CHECK_THROWS_AS(parseSchema("aten::foo(Tensor x"), InputError);
  CHECK_THROWS_AS(parseSchema("aten::foo(Tensor x) Tensor"), InputError);
  CHECK_THROWS_AS(parseSchema("(Tensor x) -> Tensor"), InputError);
  // A list default of something other than numbers is an error, not a crash.
  CHECK_THROWS_AS(parseSchema("aten::foo(Tensor x, int[] d=[\"a\"]) -> Tensor"), InputError);
  CHECK_THROWS_AS(parseSchema("aten::foo(Tensor x, int[2] d=contiguous_format) -> Tensor"), InputError);
}

TEST_CASE("every registry schema parses and is found by name") {
  CHECK(allOps().size() > 100);
  for (const OpInfo &op : allOps()) {
    CHECK(lookupOp(op.schema->name) == &op);
    // The one exception: the .pt2 reader rewrites it (Note [Batch norm's running statistics]).
    CHECK((!op.schema->mutatesInput() || op.schema->name == "aten::_native_batch_norm_legit"));
  }
  CHECK(lookupOp("aten::nonexistent") == nullptr);
}

namespace {

std::string buildError(Graph &g, const std::string &op, std::vector<Value *> inputs, AttributeMap attrs = {}) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  for (auto &[name, value] : attrs) spec.attrs[name] = value;
  try {
    buildNode(g, OpResolver{}, spec);
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("operands of a tensor list in the middle of a schema (index_put)") {
  // Note [Operands of a tensor list]: index_put(self, Tensor?[] indices, values) has its list
  // between two plain tensors; each operand is checked against its own argument.
  const OpSchema &s = *lookupOp("aten::index_put")->schema;
  CHECK(s.args[1].kind == ArgKind::TensorList);
  CHECK(s.args[1].elementsOptional);
  CHECK(!s.args[1].optional);
  std::vector<const ArgSpec *> args = s.operandArgs(4);
  REQUIRE(args.size() == 4);
  CHECK(args[0]->name == "self");
  CHECK(args[1]->name == "indices");
  CHECK(args[2]->name == "indices");
  CHECK(args[3]->name == "values");
  CHECK(s.operandArgs(2)[1]->name == "values");  // an empty list
  CHECK_THROWS_AS(s.operandArgs(1), InputError);

  Graph g("g");
  Value *x = g.addInput("x", TensorType{DType::F32, {5, 3}});
  Value *i = g.addInput("i", TensorType{DType::I64, {4}});
  Value *v = g.addInput("v", TensorType{DType::F32, {4}});
  // A None index (a whole dim) is allowed; it used to be checked as if it were `values`.
  CHECK(buildError(g, "aten::index_put", {x, nullptr, i, v}) == "");
  std::string err = buildError(g, "aten::index_put", {x, i, nullptr});
  CHECK(err.find("operand 'values' cannot be none") != std::string::npos);
  err = buildError(g, "aten::index_put", {nullptr, i, v});
  CHECK(err.find("operand 'self' cannot be none") != std::string::npos);
  // Tensor[] (not Tensor?[]) elements must be tensors.
  err = buildError(g, "aten::cat", {x, nullptr}, {{"dim", int64_t{0}}});
  CHECK(err.find("operand 'tensors' (an element) cannot be none") != std::string::npos);
  // values that do not broadcast to the indexed shape [4, 3] are a shape error.
  Value *bad = g.addInput("bad", TensorType{DType::F32, {2}});
  CHECK(buildError(g, "aten::index_put", {x, i, bad}).find("do not broadcast") != std::string::npos);
  Value *wider = g.addInput("wider", TensorType{DType::F32, {2, 4, 3}});
  err = buildError(g, "aten::index_put", {x, i, wider});
  CHECK(err.find("do not broadcast to the indexed shape f32[4,3]") != std::string::npos);
}

TEST_CASE("index.Tensor's shape rule: adjacent indices replace their dims, separated ones go first") {
  // As PyTorch: x[4,5,6][:, i, j] with i, j broadcast to [2,3] is [4,2,3]; x[i, :, j] is [2,3,5].
  Graph g("t");
  Value *x = g.addInput("x", TensorType{DType::F32, {4, 5, 6}});
  Value *i = g.addInput("i", TensorType{DType::I64, {2, 1}});
  Value *j = g.addInput("j", TensorType{DType::I64, {3}});
  Value *m = g.addInput("m", TensorType{DType::Bool, {4}});
  auto typeOf = [&](std::vector<Value *> in) {
    NodeSpec spec;
    spec.op = "aten::index.Tensor";
    spec.inputs = std::move(in);
    return buildNode(g, OpResolver{}, spec)->outputs.at(0)->type;
  };
  CHECK(typeOf({x, nullptr, i, j}) == TensorType{DType::F32, {4, 2, 3}});
  CHECK(typeOf({x, i, nullptr, j}) == TensorType{DType::F32, {2, 3, 5}});
  CHECK(typeOf({x, j}) == TensorType{DType::F32, {3, 5, 6}});
  CHECK(buildError(g, "aten::index.Tensor", {x, m}).find("depends on the data") != std::string::npos);
}

TEST_CASE("a schema with two tensor lists cannot say which operand is whose") {
  OpSchema s = parseSchema("mylib::two(Tensor[] a, Tensor[] b) -> Tensor");
  std::string err;
  try {
    s.operandArgs(3);
  } catch (const InputError &e) {
    err = e.what();
  }
  CHECK(err.find("more than one tensor list") != std::string::npos);
}
