// The attributes of an op call as its line of the op list (runtime/op_list.h)
// declares them: their defaults, and the check of a value JavaScript gave
// ("add: expected a number for alpha, got 'x'"). Used by op_binding.cc.
#pragma once

#include <napi.h>

#include <cmath>
#include <vector>

#include "runtime/op_registry.h"

namespace tsgpu {
namespace binding {

/** The defaults of op's attributes in op-list order, parsed from the op list once (absent for `?` attributes). */
const std::vector<AttrValue>& defaultsOf(OpId op);

/**
 * Reads attribute k of `info` from the JavaScript value v into out (present), converting booleans
 * for numbers and a number for a list of integers; throws an ArgumentError naming the op, the
 * attribute, the type expected and what came.
 */
void readAttr(const OpInfo& info, size_t k, const Napi::Value& v, AttrValue& out);

/** Whether d is an integer that a JavaScript number holds exactly (|d| <= 2^53). */
inline bool integral(double d) { return std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0; }

}  // namespace binding
}  // namespace tsgpu
