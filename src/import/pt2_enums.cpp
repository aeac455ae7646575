// Note [torch.export enums]: every value of torch/_export/serde/schema.py's
// enums (schema 8.x, torch 2.11; unchanged since major 3), mapped explicitly.
#include "src/import/pt2_enums.h"

#include <set>

#include "ir/diagnostic.h"

namespace torchtv {

namespace {

[[noreturn]] void refuse(const char *what, int64_t code, const std::string &name, const std::string &why) {
  throw InputError(std::string(what) + " " + std::to_string(code) + (name.empty() ? "" : " (" + name + ")") + " " + why);
}

[[noreturn]] void outside(const char *what, int64_t code) {
  refuse(what, code, "", std::string("is not a value of torch.export's ") + what + " enum (torch/_export/serde/schema.py)");
}

}  // namespace

DType pt2ScalarType(int64_t code) {
  const char *what = "ScalarType";
  switch (code) {
  case 1: return DType::U8;     // BYTE
  case 2: return DType::I8;     // CHAR
  case 3: return DType::I16;    // SHORT
  case 4: return DType::I32;    // INT
  case 5: return DType::I64;    // LONG
  case 6: return DType::F16;    // HALF
  case 7: return DType::F32;    // FLOAT
  case 8: return DType::F64;    // DOUBLE
  case 12: return DType::Bool;  // BOOL
  case 13: return DType::BF16;  // BFLOAT16
  case 10: return DType::C64;   // COMPLEXFLOAT (Note [Complex values as pairs of reals])
  case 11: return DType::C128;  // COMPLEXDOUBLE
  case 0: refuse(what, code, "UNKNOWN", "names no dtype");
  case 9: refuse(what, code, "COMPLEXHALF", "is a dtype torchtv does not support");
  case 28: refuse(what, code, "UINT16", "is a dtype torchtv does not support");
  case 29: refuse(what, code, "FLOAT8E4M3FN", "is a dtype torchtv does not support");
  case 30: refuse(what, code, "FLOAT8E5M2", "is a dtype torchtv does not support");
  case 31: refuse(what, code, "FLOAT8E4M3FNUZ", "is a dtype torchtv does not support");
  case 32: refuse(what, code, "FLOAT8E5M2FNUZ", "is a dtype torchtv does not support");
  default: outside(what, code);
  }
}

// c10::Layout: Strided 0, Sparse 1, SparseCsr 2, Mkldnn 3, SparseCsc 4,
// SparseBsr 5, SparseBsc 6 (c10/core/Layout.h).
int64_t pt2Layout(int64_t code) {
  switch (code) {
  case 1: return 1;  // SparseCoo -> Sparse
  case 2: return 2;  // SparseCsr
  case 3: return 4;  // SparseCsc
  case 4: return 5;  // SparseBsr
  case 5: return 6;  // SparseBsc
  case 6: return 3;  // _mkldnn -> Mkldnn
  case 7: return 0;  // Strided
  case 0: refuse("Layout", code, "Unknown", "names no layout");
  default: outside("Layout", code);
  }
}

// c10::MemoryFormat: Contiguous 0, Preserve 1, ChannelsLast 2, ChannelsLast3d 3
// (c10/core/MemoryFormat.h; 4 is NumOptions, not a format).
int64_t pt2MemoryFormat(int64_t code) {
  switch (code) {
  case 1: return 0;  // ContiguousFormat
  case 2: return 2;  // ChannelsLast
  case 3: return 3;  // ChannelsLast3d
  case 4: return 1;  // PreserveFormat
  case 0: refuse("MemoryFormat", code, "Unknown", "names no memory format");
  default: outside("MemoryFormat", code);
  }
}

// The device types c10::Device parses (c10/core/DeviceType.cpp).
std::string pt2Device(const std::string &type, std::optional<int64_t> index) {
  static const std::set<std::string> known = {"cpu",  "cuda", "xpu", "mkldnn", "opengl", "opencl", "ideep",
                                              "hip",  "ve",   "fpga", "ort",   "xla",    "lazy",   "vulkan",
                                              "mps",  "meta", "hpu", "ipu",    "mtia",   "privateuseone"};
  if (!known.count(type)) throw InputError("device type '" + type + "' is not one c10::Device knows");
  // c10's index -1 is "no index", as schema.py's None.
  if (!index || *index == -1) return type;
  if (*index < 0 || *index > 127)  // c10::DeviceIndex is an int8_t
    throw InputError("device index " + std::to_string(*index) + " of '" + type + "' is out of range");
  return type + ":" + std::to_string(*index);
}

}  // namespace torchtv
