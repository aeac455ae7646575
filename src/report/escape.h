// Escaping for the text formats that reports are written in.
#pragma once

#include <string>
#include <string_view>

namespace torchtv {

// For XML and HTML text and attribute values: & < > " '
std::string xmlEscape(std::string_view s);

// JSON text for a <script> element: "</" cannot end the element early.
std::string scriptSafe(std::string_view json);

}  // namespace torchtv
