// torch.export's serialized enums -> the IR's values.
//
// Note [torch.export enums]
// torch/_export/serde/schema.py numbers its enums on its own, not as c10 does:
// its ScalarType is c10's shifted by one (FLOAT is 7, c10's Float is 6), its
// Layout puts Strided last (7; c10's Strided is 0) and its MemoryFormat has
// PreserveFormat at 4, where c10's 4 is NumOptions (c10's Preserve is 1).
// Passing a number through is therefore wrong, and worse than wrong: LibTorch
// 1.13 overflows its stack replaying `ones_like {memory_format=4}`. Every
// value of every enum is mapped here explicitly, to what the TorchScript
// reader records for the same argument (c10's numbering for Layout and
// MemoryFormat, c10::Device's spelling for devices), so that a .pt and a .pt2
// of one model read alike and replay takes the values as they are. A value
// outside the schema, or one torchtv cannot represent, is an InputError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/dtype.h"

namespace torchtv {

// schema.py ScalarType -> DType. InputError for UNKNOWN, complex, float8,
// uint16 and codes outside the enum.
DType pt2ScalarType(int64_t code);
// schema.py Layout -> c10::Layout's number (Strided 7 -> 0).
int64_t pt2Layout(int64_t code);
// schema.py MemoryFormat -> c10::MemoryFormat's number (PreserveFormat 4 -> 1).
int64_t pt2MemoryFormat(int64_t code);
// schema.py Device {type, index} -> c10::Device::str() ("cpu", "cuda:0").
std::string pt2Device(const std::string &type, std::optional<int64_t> index);

}  // namespace torchtv
