// Assumptions (Note [Assumptions as data] in src/sem/assumption.h) stored and read back by the
// proof cache and the result cache: nlohmann's to_json/from_json, found by argument lookup.
#pragma once

#include <nlohmann/json.hpp>

#include "src/sem/assumption.h"

namespace torchtv::sem {

inline void to_json(nlohmann::json &j, const Assumption &a) {
  j = {{"kind", static_cast<int>(a.kind)}, {"subject", a.subject}, {"bound", a.range.bound},
       {"also_defined", a.range.alsoDefined}, {"op", a.op}};
}

inline void from_json(const nlohmann::json &j, Assumption &a) {
  a.kind = static_cast<Assumption::Kind>(j.at("kind").get<int>());
  a.subject = j.at("subject").get<std::string>();
  a.range.bound = j.at("bound").get<int64_t>();
  a.range.alsoDefined = j.at("also_defined").get<std::vector<int64_t>>();
  a.op = j.at("op").get<std::string>();
}

}  // namespace torchtv::sem
