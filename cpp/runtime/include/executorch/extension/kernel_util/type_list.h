#pragma once
// Compile-time lists of types, used by the typed-kernel adapter (make_boxed_from_unboxed_functor.h) to take a
// kernel's parameter list apart: typelist<Ts...>, size, element, head_with_default, drop_if_nonempty.
#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace executorch {
namespace extension {
namespace kernel_util_internal {

// Always false, but only once T is known (for static_asserts in templates that must not be instantiated).
template <class... T>
struct false_t : std::false_type {};

// A list of types; only a tag, never an object.
template <class... Items>
struct typelist final {
 public:
  typelist() = delete;
};

// size<typelist<Ts...>>::value == sizeof...(Ts).
template <class TypeList>
struct size final {
  static_assert(false_t<TypeList>::value, "size<T> takes a typelist<...>");
};
template <class... Types>
struct size<typelist<Types...>> final {
  static constexpr size_t value = sizeof...(Types);
};

// Whether T is Template<Args...> for some Args.
template <template <class...> class Template, class T>
struct is_instantiation_of : std::false_type {};
template <template <class...> class Template, class... Args>
struct is_instantiation_of<Template, Template<Args...>> : std::true_type {};
template <template <class...> class Template, class T>
using is_instantiation_of_t = typename is_instantiation_of<Template, T>::type;

// element<I, typelist<Ts...>>::type: the I-th type.
template <size_t Index, class TypeList>
struct element final {
  static_assert(false_t<TypeList>::value, "element<I, T> takes a typelist<...>");
};
template <class Head, class... Tail>
struct element<0, typelist<Head, Tail...>> {
  using type = Head;
};
template <size_t Index, class... Ts>
struct element<Index, typelist<Ts...>> {
  static_assert(Index < sizeof...(Ts), "element<I, T>: I is past the end of the typelist");
};
template <size_t Index, class Head, class... Tail>
struct element<Index, typelist<Head, Tail...>> : element<Index - 1, typelist<Tail...>> {};
template <size_t Index, class TypeList>
using element_t = typename element<Index, TypeList>::type;

// The first type of the list, or Default when it is empty.
template <class Default, class TypeList>
struct head_with_default final {
  using type = Default;
};
template <class Default, class Head, class... Tail>
struct head_with_default<Default, typelist<Head, Tail...>> final {
  using type = Head;
};
template <class Default, class TypeList>
using head_with_default_t = typename head_with_default<Default, TypeList>::type;

// The elements offset + I for each I of the index sequence.
template <class TypeList, size_t offset, class IndexSequence>
struct take_elements final {};
template <class TypeList, size_t offset, size_t... Indices>
struct take_elements<TypeList, offset, std::index_sequence<Indices...>> final {
  using type = typelist<typename element<offset + Indices, TypeList>::type...>;
};

// The list without its first `num` types (empty when it has fewer).
template <class TypeList, size_t num>
struct drop_if_nonempty final {
  static_assert(is_instantiation_of<typelist, TypeList>::value, "drop_if_nonempty<T, n> takes a typelist<...>");
  static constexpr size_t kDropped = std::min(num, size<TypeList>::value);
  using type =
      typename take_elements<TypeList, kDropped, std::make_index_sequence<size<TypeList>::value - kDropped>>::type;
};
template <class TypeList, size_t num>
using drop_if_nonempty_t = typename drop_if_nonempty<TypeList, num>::type;

}  // namespace kernel_util_internal
}  // namespace extension
}  // namespace executorch
