#include "ir/import_util.h"

#include <cctype>

#include "ir/op_registry.h"

namespace torchtv {

Value *addConstantTensor(Graph &g, const OpResolver &ops, const TensorType &type, Attribute data,
                         const std::string &name, const SourceLoc &loc) {
  std::optional<int64_t> n = numel(type.shape);
  if (!n) throw InputError("tensor constant '" + name + "' has a symbolic shape " + type.str());
  if (*n > kMaxConstantElements)
    throw InputError("tensor constant '" + name + "' of type " + type.str() + " has " + std::to_string(*n) +
                     " elements, more than the " + std::to_string(kMaxConstantElements) +
                     " a literal may have (make it a parameter or buffer, so that it becomes an input)");
  NodeSpec spec;
  spec.op = "prim::constant";
  spec.attrs["data"] = std::move(data);
  spec.outputNames = {g.freshName(valueNameHint(name))};
  spec.declaredTypes = {type};
  spec.loc = loc;
  return buildNode(g, ops, std::move(spec))->output();
}

Value *wrappedNumberTensor(Graph &g, const OpResolver &ops, const Attribute &number,
                           const std::vector<Value *> &operands, const SourceLoc &loc) {
  if (!number.isScalar()) throw InputError("argument " + number.str() + " is given where the op takes a tensor");
  if (number.isBool()) return addConstantTensor(g, ops, {DType::Bool, {}}, std::vector<int64_t>{number.asBool()}, "c", loc);
  if (number.isInt()) return addConstantTensor(g, ops, {DType::I64, {}}, std::vector<int64_t>{number.asInt()}, "c", loc);
  bool floatingOperand = false;
  for (const Value *v : operands) floatingOperand = floatingOperand || (v && isFloating(v->type.dtype));
  return addConstantTensor(g, ops, {floatingOperand ? DType::F64 : DType::F32, {}}, std::vector<double>{number.asFloat()},
                           "c", loc);
}

void completeAbsentOutputs(NodeSpec &spec, const std::vector<size_t> &absent, size_t count) {
  if (absent.empty()) return;
  const OpInfo *info = lookupOp(spec.op);
  bool declaredOnly = !info || info->rule == ShapeRule::Declared;
  if (!declaredOnly || spec.declaredTypes.empty()) {
    spec.declaredTypes.clear();
    return;
  }
  std::vector<TensorType> all;
  size_t typed = 0, next = 0;
  for (size_t k = 0; k < count; ++k) {
    bool isAbsent = next < absent.size() && absent[next] == k;
    if (isAbsent) ++next;
    all.push_back(isAbsent ? TensorType{spec.declaredTypes[0].dtype, Shape{}} : spec.declaredTypes.at(typed++));
  }
  spec.declaredTypes = std::move(all);
}

bool isNoOpCheck(const std::string &op) { return op == "aten::_assert_tensor_metadata"; }

InputError nodeError(const std::string &path, const std::string &op, const SourceLoc &loc,
                     const std::string &message) {
  std::string where = loc.known() ? " at " + loc.str() : "";
  return InputError(SourcePos{path}, op + where + ": " + message);
}

std::string valueNameHint(const std::string &foreign) {
  std::string s = foreign;
  size_t dot = s.rfind('.');
  if (dot != std::string::npos && dot + 1 < s.size() &&
      s.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    s.resize(dot);
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return "v";
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') c = '_';
  return s;
}

}  // namespace torchtv
