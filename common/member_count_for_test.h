// Test helper: the number of members of an aggregate, by the C++20 brace-init arity
// trick (T{AnyArg{}, ...} compiles for up to as many arguments as T has members).
#pragma once

#include <cstddef>

namespace storbed::testing {

struct AnyArg {
  template <class T>
  operator T() const;
};

template <class T, class... A>
constexpr size_t MemberCount() {
  if constexpr (requires { T{A{}..., AnyArg{}}; })
    return MemberCount<T, A..., AnyArg>();
  else
    return sizeof...(A);
}

}  // namespace storbed::testing
