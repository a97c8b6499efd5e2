#include "rules/compiled_rules.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

namespace dlldoctor::rules {

// How many members an aggregate has, counted the way Boost.PFR does: T{m, m, ...} compiles with up to as
// many initialisers as T has members. members() asserts that a list names them all, so a member added to
// a rule struct and not to its list below stops the build instead of vanishing from the compiled file.
// Outside the anonymous namespace: its conversion is declared, never defined, and clang warns of that for
// a function of internal linkage.
struct AnyMember {
  template <typename U, typename = std::enable_if_t<!std::is_same_v<std::decay_t<U>, AnyMember>>>
  operator U() const;  // NOLINT(google-explicit-constructor): only ever named in decltype
};

namespace {

// Counting tries lists shorter than T, which clang reports as missing initialisers even in decltype.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
template <typename T, typename... A>
constexpr auto brace_initializable(int) -> decltype(T{std::declval<A>()...}, bool()) {
  return true;
}
#pragma GCC diagnostic pop
template <typename T, typename... A>
constexpr bool brace_initializable(long) {
  return false;
}
template <typename T, typename... A>
constexpr std::size_t member_count() {
  if constexpr (brace_initializable<T, A..., AnyMember>(0)) {
    return member_count<T, A..., AnyMember>();
  } else {
    return sizeof...(A);
  }
}

// A `source` member ("path:line"): kept as the index of its file and the rest, so that the compiled file
// holds no folder and the rules can move with the binary.
struct Source {
  std::string& text;
};
// A member that is not kept (load_rules fills it).
struct NotKept {};

template <typename T, typename Archive, typename... Members>
void members(Archive& archive, Members&&... list) {
  static_assert(sizeof...(Members) == member_count<T>(), "a member is missing from this list");
  (archive(std::forward<Members>(list)), ...);
}

template <typename A>
void fields(A& a, VersionRange& r) {
  members<VersionRange>(a, r.from, r.before);
}
template <typename A>
void fields(A& a, VersionedLoads& v) {
  members<VersionedLoads>(a, v.versions, v.loads, v.why);
}
template <typename A>
void fields(A& a, Family& f) {
  members<Family>(a, f.id, f.name, f.kind, f.generation, f.main, f.members, f.runtime_loads, f.versioned_loads,
                  f.install_places, f.wheel_places, f.install, f.redist_folder, f.release, f.archive, f.same_version,
                  f.version_format, f.runtime_says, Source{f.source});
}
template <typename A>
void fields(A& a, FailureMode& m) {
  members<FailureMode>(a, m.id, m.seed_section, m.title, m.explanation);
}
template <typename A>
void fields(A& a, FindingRule::StepTemplate& s) {
  members<FindingRule::StepTemplate>(a, s.kind, s.fields);
}
// The id first: a packed rule is found by it without unpacking the rest (FindingRules).
template <typename A>
void fields(A& a, FindingRule& r) {
  members<FindingRule>(a, r.id, r.title, r.failure_mode, r.severity, r.messages, r.fixes, r.steps, r.errors, r.says,
                       Source{r.source});
}
template <typename A>
void fields(A& a, DriverMinimum& d) {
  members<DriverMinimum>(a, d.cuda_major, d.cuda_minor, d.driver);
}
template <typename A>
void fields(A& a, DriverFloor& d) {
  members<DriverFloor>(a, d.cuda_major, d.driver);
}
template <typename A>
void fields(A& a, RecipeAttribute& r) {
  members<RecipeAttribute>(a, r.name, r.file, r.key, r.package, r.dist_info);
}
template <typename A>
void fields(A& a, RecipeDerived& r) {
  members<RecipeDerived>(a, r.name, r.from, r.map);
}
template <typename A>
void fields(A& a, RecipeStep& s) {
  members<RecipeStep>(a, s.kind, s.target, s.flags, s.if_exists, s.unless_found, s.retry_with_path, s.failure_caught,
                      s.first_use, s.each, s.when, s.covers, s.says, s.why, Source{s.source});
}
template <typename A>
void fields(A& a, RecipeRequirement& r) {
  members<RecipeRequirement>(a, r.versions, r.dll, r.minimum, r.finding, r.why, r.effect, Source{r.source});
}
template <typename A>
void fields(A& a, RecipeOrder& o) {
  members<RecipeOrder>(a, o.recipe, o.why, Source{o.source});
}
template <typename A>
void fields(A& a, Recipe& r) {
  members<Recipe>(a, r.id, r.name, r.host, r.applies, r.package, r.extends, r.version, r.attributes, r.derived, r.steps,
                  r.requirements, r.not_before, r.supported, r.code, r.check, r.check_needs, r.covers,
                  Source{r.source});
}
template <typename A>
void fields(A& a, LoadProfile& p) {
  members<LoadProfile>(a, p.id, p.flags, p.flags_with_path, p.says, p.why, Source{p.source});
}
template <typename A>
void fields(A& a, graph::DelayLoadHook& h) {
  members<graph::DelayLoadHook>(a, h.importer, h.dlls, h.answer, h.flags, h.why, Source{h.source});
}
template <typename A>
void fields(A& a, graph::LazyLoad& l) {
  members<graph::LazyLoad>(a, l.loader, l.dlls, l.flags, l.then_path, l.optional, l.when, l.says, l.why,
                           Source{l.source});
}
template <typename A>
void fields(A& a, LoaderError& e) {
  members<LoaderError>(a, e.code, e.name, e.text, e.startup_status, e.startup, e.delay, Source{e.source});
}
template <typename A>
void fields(A& a, LibraryNote& l) {
  members<LibraryNote>(a, l.dll, l.windows_component, l.older, Source{l.source});
}
template <typename A>
void fields(A& a, MachinePlaces& m) {
  members<MachinePlaces>(a, m.pythons, m.conda, m.conda_dll_folders, m.toolkits, m.toolkit_variables, m.toolkit_bins,
                         m.driver_store, m.driver_store_dlls, m.cuda_in_path, m.toolkit_keys, m.package_markers,
                         m.package_boundaries, m.package_dll_folders, Source{m.source});
}
template <typename A>
void fields(A& a, RuleData& d) {
  members<RuleData>(a, d.families, d.failure_modes, d.findings, d.driver_minimums, d.driver_floors, d.recipes,
                    d.profiles, d.delay_load_hooks, d.lazy_loads, d.loader_errors, d.libraries, d.machine, NotKept{},
                    NotKept{});
}

template <typename T>
constexpr bool is_number = std::is_integral_v<T> || std::is_enum_v<T>;

// The last value of each enum the rules hold (they count from 0): a value past it was not written by
// this build. An enum without one here does not compile.
template <typename E>
constexpr E last_value();
template <>
constexpr Severity last_value<Severity>() {
  return Severity::Info;
}
template <>
constexpr RecipeStep::Kind last_value<RecipeStep::Kind>() {
  return RecipeStep::Kind::SetDllDirectory;
}
template <>
constexpr graph::DelayLoadHook::Answer last_value<graph::DelayLoadHook::Answer>() {
  return graph::DelayLoadHook::Answer::ImporterFolder;
}

// The layout the lists above give the file: each member's kind, in order, down into the elements of
// lists and maps. A file written by a build whose lists differ is not read.
class Signature {
 public:
  template <typename T>
  std::enable_if_t<is_number<T>> operator()(T&) {
    out_ += std::is_enum_v<T> ? 'e' : std::is_same_v<T, bool> ? 'b' : std::is_signed_v<T> ? 'i' : 'u';
    out_ += std::to_string(sizeof(T));
  }
  void operator()(std::string&) { out_ += 's'; }
  void operator()(DllName&) { out_ += 'd'; }
  void operator()(NotKept) { out_ += '-'; }
  void operator()(Source) { out_ += '@'; }
  template <typename T>
  void operator()(std::optional<T>&) {
    out_ += '?';
    T item{};
    (*this)(item);
  }
  template <typename T>
  void operator()(std::vector<T>&) {
    out_ += '[';
    T item{};
    (*this)(item);
    out_ += ']';
  }
  template <typename K, typename V>
  void operator()(std::map<K, V>&) {
    out_ += '<';
    V value{};
    (*this)(value);
    out_ += '>';
  }
  void operator()(FindingRules&) {
    std::vector<FindingRule> list;  // written as a list of them
    (*this)(list);
  }
  template <typename T>
  std::enable_if_t<std::is_class_v<T>> operator()(T& value) {
    out_ += '(';
    fields(*this, value);
    out_ += ')';
  }
  const std::string& text() const { return out_; }

 private:
  std::string out_;
};

class Writer {
 public:
  explicit Writer(const std::vector<RuleFile>& files) : files_(files) {}

  void number(std::uint64_t value) {
    for (int shift = 0; shift < 64; shift += 8) out_.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  template <typename T>
  std::enable_if_t<is_number<T>> operator()(T& value) {
    number(static_cast<std::uint64_t>(value));
  }
  void operator()(std::string_view text) {
    number(text.size());
    out_.append(text);
  }
  void operator()(std::string& text) { (*this)(std::string_view(text)); }
  void operator()(DllName& name) { (*this)(std::string_view(name.display())); }
  void operator()(NotKept) {}
  void operator()(Source source) {
    for (std::size_t i = 0; i < files_.size(); ++i) {
      const std::string& path = files_[i].path;
      if (source.text.size() > path.size() && source.text.compare(0, path.size(), path) == 0 &&
          source.text[path.size()] == ':') {
        number(i);
        (*this)(std::string_view(source.text).substr(path.size()));
        return;
      }
    }
    failed_source_ = source.text;
  }
  template <typename T>
  void operator()(std::optional<T>& value) {
    number(value.has_value() ? 1 : 0);
    if (value) (*this)(*value);
  }
  template <typename T>
  void operator()(std::vector<T>& list) {
    number(list.size());
    for (T& item : list) (*this)(item);
  }
  template <typename K, typename V>
  void operator()(std::map<K, V>& map) {
    number(map.size());
    for (auto& [key, value] : map) {
      (*this)(std::string_view(key));
      (*this)(value);
    }
  }
  void operator()(FindingRules& rules) {
    number(rules.size());
    for (std::size_t i = 0; i < rules.size(); ++i) {
      FindingRule rule = rules[i];  // fields() takes its members by non-const reference
      (*this)(rule);
    }
  }
  template <typename T>
  std::enable_if_t<std::is_class_v<T>> operator()(T& value) {
    fields(*this, value);
  }

  std::string& bytes() { return out_; }
  const std::string& failed_source() const { return failed_source_; }

 private:
  const std::vector<RuleFile>& files_;
  std::string out_;
  std::string failed_source_;
};

// Reads what Writer wrote, checking every length against the bytes left; any misfit fails the whole read.
// kKeep false only checks: it walks the same members and keeps nothing (a packed finding, unpacked later).
template <bool kKeep>
class BasicReader {
 public:
  BasicReader(std::string_view bytes, const std::vector<RuleFile>& files) : bytes_(bytes), files_(files) {}

  std::uint64_t number() {
    if (!ok_ || bytes_.size() - at_ < 8) return fail();
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= std::uint64_t(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
    at_ += 8;
    return value;
  }
  std::string_view text() {
    const std::uint64_t size = number();
    if (!ok_ || size > bytes_.size() - at_) return fail(), std::string_view();
    std::string_view text = bytes_.substr(at_, size);
    at_ += size;
    return text;
  }
  // A count of items that take at least 8 bytes each: no count can ask for more than the bytes left.
  std::uint64_t count() {
    const std::uint64_t n = number();
    if (n > (bytes_.size() - at_) / 8) return fail();
    return n;
  }

  template <typename T>
  std::enable_if_t<is_number<T>> operator()(T& value) {
    const std::uint64_t read = number();
    using Stored = std::conditional_t<std::is_enum_v<T>, std::underlying_type<T>, std::common_type<T>>;
    using Underlying = typename Stored::type;
    bool fits = read == static_cast<std::uint64_t>(static_cast<Underlying>(read));
    if constexpr (std::is_same_v<T, bool>) fits = read <= 1;
    if constexpr (std::is_enum_v<T>) fits = read <= static_cast<std::uint64_t>(last_value<T>());
    if (!fits) {
      fail();
      return;
    }
    if constexpr (kKeep) value = static_cast<T>(static_cast<Underlying>(read));
  }
  void operator()(std::string& value) {
    const std::string_view read = text();
    if constexpr (kKeep) value = std::string(read);
  }
  void operator()(DllName& name) {
    const std::string_view read = text();
    if constexpr (kKeep) name = DllName(read);
  }
  void operator()(NotKept) {}
  void operator()(Source source) {
    const std::uint64_t file = number();
    const std::string_view rest = text();
    if (!ok_ || file >= files_.size()) return void(fail());
    if constexpr (kKeep) {
      source.text = files_[file].path;
      source.text += rest;
    }
  }
  template <typename T>
  void operator()(std::optional<T>& value) {
    const std::uint64_t present = number();
    if (present > 1) return void(fail());
    if (present == 0) return;
    if constexpr (kKeep) {
      (*this)(value.emplace());
    } else {
      T item{};
      (*this)(item);
    }
  }
  template <typename T>
  void operator()(std::vector<T>& list) {
    const std::uint64_t n = count();
    if constexpr (kKeep) list.reserve(n);
    for (std::uint64_t i = 0; i < n && ok_; ++i) {
      if constexpr (kKeep) {
        (*this)(list.emplace_back());
      } else {
        T item{};
        (*this)(item);
      }
    }
  }
  template <typename K, typename V>
  void operator()(std::map<K, V>& map) {
    const std::uint64_t n = count();
    for (std::uint64_t i = 0; i < n && ok_; ++i) {
      [[maybe_unused]] const std::string_view key = text();
      V value{};  // a damaged file stops the reads: nothing indeterminate is copied
      (*this)(value);
      // Written in the map's order: each goes at the end, without a search.
      if constexpr (kKeep) map.emplace_hint(map.end(), K(key), std::move(value));
    }
  }
  // Each rule is checked now and kept packed, with its id: most runs never ask for most of them.
  void operator()(FindingRules& rules) {
    const std::uint64_t n = count();
    // The files' paths alone: the sources name them, and a caller's texts need not live on.
    std::vector<RuleFile> paths;
    for (const RuleFile& file : files_) paths.push_back({file.path, file.name, {}});
    const auto unpack = std::make_shared<const FindingRules::Unpack>([paths](std::string_view packed) {
      FindingRule rule;
      BasicReader<true> in(packed, paths);
      in(rule);
      // The check below walked the same members over the same bytes.
      assert(in.ok() && in.remaining() == 0);
      return rule;
    });
    for (std::uint64_t i = 0; i < n && ok_; ++i) {
      const std::string_view rest = bytes_.substr(at_);
      BasicReader<false> check(rest, files_);
      FindingRule shape;
      check(shape);
      if (!check.ok()) return void(fail());
      const std::string_view packed = rest.substr(0, rest.size() - check.remaining());
      at_ += packed.size();
      std::string id(BasicReader<false>(packed, files_).text());  // the first member
      if constexpr (kKeep) rules.push_back_packed(std::move(id), packed, unpack);
    }
  }
  template <typename T>
  std::enable_if_t<std::is_class_v<T>> operator()(T& value) {
    fields(*this, value);
  }

  bool ok() const { return ok_; }
  std::size_t remaining() const { return bytes_.size() - at_; }

 private:
  std::uint64_t fail() {
    ok_ = false;
    return 0;
  }

  std::string_view bytes_;
  const std::vector<RuleFile>& files_;
  std::size_t at_ = 0;
  bool ok_ = true;
};
using Reader = BasicReader<true>;

constexpr std::string_view kMagic = "dlldoctor compiled rules 4\n";

std::string layout() {
  Signature signature;
  RuleData data;
  signature(data);
  return signature.text();
}

}  // namespace

Result<std::string> compile_rules_payload(const RuleData& data, const std::vector<RuleFile>& files) {
  Writer payload(files);
  RuleData copy = data;  // the member lists take the members to read into, so the writer's are not const
  payload(copy);
  if (!payload.failed_source().empty()) {
    return Error{fmt::format("{}: a source outside the folder's rule files", payload.failed_source())};
  }
  return std::move(payload.bytes());
}

std::optional<RuleData> read_compiled_payload(std::string_view payload, const std::vector<RuleFile>& files) {
  Reader in(payload, files);
  RuleData data;
  in(data);
  if (!in.ok() || in.remaining() != 0) return std::nullopt;
  return data;
}

Result<std::string> compile_rules(const RuleData& data, const std::vector<RuleFile>& files) {
  auto payload = compile_rules_payload(data, files);
  if (!payload) return payload;
  Writer out(files);
  out(kMagic);
  out(layout());
  out.bytes() += *payload;
  return std::move(out.bytes());
}

std::optional<RuleData> read_compiled_rules(std::string_view bytes, const std::vector<RuleFile>& files) {
  Reader in(bytes, files);
  if (in.text() != kMagic || in.text() != layout() || !in.ok()) return std::nullopt;
  return read_compiled_payload(bytes.substr(bytes.size() - in.remaining()), files);
}

}  // namespace dlldoctor::rules
