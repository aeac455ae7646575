#include <doctest/doctest.h>

#include "ir/diagnostic.h"
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
  CHECK(s.args[1].defaultValue->str() == "[1]");
  CHECK(s.args[2].defaultValue->asInt() == 1);
  CHECK(s.args[3].defaultValue->str() == "[0.5, 2.0]");
  CHECK(s.args[4].defaultValue->asString() == "none");
  OpSchema list = parseSchema("aten::split(Tensor self, int size, int dim=0) -> Tensor[]");
  CHECK(list.returnsList);
}

TEST_CASE("malformed schemas are input errors with a column") {
  CHECK_THROWS_AS(parseSchema("aten::foo(Tensor x"), InputError);
  CHECK_THROWS_AS(parseSchema("aten::foo(Tensor x) Tensor"), InputError);
  CHECK_THROWS_AS(parseSchema("(Tensor x) -> Tensor"), InputError);
}

TEST_CASE("every registry schema parses and is found by name") {
  CHECK(allOps().size() > 100);
  for (const OpInfo &op : allOps()) {
    CHECK(lookupOp(op.schema->name) == &op);
    CHECK(!op.schema->mutatesInput());
  }
  CHECK(lookupOp("aten::nonexistent") == nullptr);
}
