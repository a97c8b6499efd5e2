#include "scenarios/scenario.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "support/run_process.hpp"

namespace dlldoctor::test {

namespace fs = std::filesystem;
using nlohmann::json;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

namespace {

[[noreturn]] void malformed(const fs::path& file, const std::string& what) {
  throw std::runtime_error(file.string() + ": " + what);
}

std::string need_string(const fs::path& file, const toml::node& node, const std::string& key) {
  if (const auto value = node.value<std::string>()) return *value;
  malformed(file, key + " must be a string");
}

std::vector<std::string> string_list(const fs::path& file, const toml::node& node, const std::string& key) {
  const auto* array = node.as_array();
  if (!array) malformed(file, key + " must be an array of strings");
  std::vector<std::string> out;
  for (const auto& item : *array) out.push_back(need_string(file, item, key));
  return out;
}

std::optional<std::string> opt_string(const fs::path& file, const toml::table& table, const std::string& key) {
  if (const auto* node = table.get(key)) return need_string(file, *node, key);
  return std::nullopt;
}

json to_json(const toml::node& node) {
  if (const auto v = node.value_exact<bool>()) return *v;
  if (const auto v = node.value_exact<int64_t>()) return *v;
  if (const auto v = node.value_exact<double>()) return *v;
  if (const auto v = node.value_exact<std::string>()) return *v;
  if (const auto* array = node.as_array()) {
    json out = json::array();
    for (const auto& item : *array) out.push_back(to_json(item));
    return out;
  }
  if (const auto* table = node.as_table()) {
    json out = json::object();
    for (const auto& [key, value] : *table) out[std::string(key.str())] = to_json(value);
    return out;
  }
  return nullptr;
}

// "none" (or false) in a scenario file means JSON null: TOML has no null.
json error_value(const fs::path& file, const toml::node& node) {
  if (const auto v = node.value_exact<int64_t>()) return *v;
  if (const auto v = node.value_exact<std::string>(); v && *v == "none") return nullptr;
  malformed(file, "outcome.error must be a number or \"none\"");
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

std::string describe(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::set<std::string> sorted(const std::vector<std::string>& items) { return {items.begin(), items.end()}; }

std::string join(const std::set<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) out += (out.size() > 1 ? ", " : "") + item;
  return out + "]";
}

}  // namespace

Scenario load_scenario(const fs::path& file) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    malformed(file, std::string("TOML error: ") + std::string(e.description()));
  }
  static const std::set<std::string> kKnownKeys = {"description", "wine",           "files",  "run",
                                                   "outcome",     "modules",        "json",   "findings",
                                                   "finding_ids", "absent_modules", "healthy"};
  for (const auto& [key, value] : root) {
    (void)value;
    if (!kKnownKeys.count(std::string(key.str()))) malformed(file, "unknown key " + std::string(key.str()));
  }
  Scenario s;
  s.file = file;
  s.name = file.stem().string();
  s.description = opt_string(file, root, "description").value_or("");
  if (s.description.empty()) malformed(file, "description is required: say what the scenario shows");
  s.wine = root["wine"].value_or(false);
  s.healthy = root["healthy"].value_or(false);
  // A scenario named for a healthy install promises the silence the key checks.
  if (s.name.rfind("healthy_", 0) == 0 && !s.healthy) malformed(file, "a healthy_ scenario says healthy = true");

  if (const auto* files = root["files"].as_table()) {
    for (const auto& [key, value] : *files) {
      ScenarioFile f;
      f.dest = std::string(key.str());
      if (const auto* table = value.as_table()) {
        const auto* text = table->get("text");
        const auto* fixture = table->get("fixture");
        const auto* cut = table->get("cut");
        if (text && !fixture && !cut && table->size() == 1) {
          f.kind = ScenarioFile::Kind::kText;
          f.source = need_string(file, *text, "files.*.text");
        } else if (fixture && cut && cut->as_integer() && cut->as_integer()->get() >= 0 && table->size() == 2) {
          f.source = need_string(file, *fixture, "files.*.fixture");
          f.cut = static_cast<std::uint64_t>(cut->as_integer()->get());
        } else {
          malformed(file, "files." + f.dest + ": a table must be { text = \"...\" } or { fixture = \"...\", cut = N }");
        }
      } else {
        f.source = need_string(file, value, "files." + f.dest);
        if (!f.dest.empty() && f.dest.back() == '/') {
          f.kind = f.source.empty() ? ScenarioFile::Kind::kFolder : ScenarioFile::Kind::kFixtureSet;
        } else if (f.source.empty())
          f.kind = ScenarioFile::Kind::kEmpty;
      }
      if (f.dest.empty() || f.dest.front() == '/' || f.dest.find("..") != std::string::npos)
        malformed(file, "files: destination must be relative to {root}: " + f.dest);
      s.files.push_back(std::move(f));
    }
  }

  const auto* run = root["run"].as_table();
  if (!run || !run->get("args")) malformed(file, "[run] args is required");
  // A key under the wrong table would otherwise switch its check off without a word.
  const auto only_keys = [&](const toml::table& table, const std::string& where, const std::set<std::string>& keys) {
    for (const auto& [key, value] : table) {
      (void)value;
      if (!keys.count(std::string(key.str()))) malformed(file, where + ": unknown key " + std::string(key.str()));
    }
  };
  only_keys(*run, "[run]", {"args", "cwd", "exit"});
  if (const auto* outcome = root["outcome"].as_table()) {
    only_keys(*outcome, "[outcome]", {"status", "error", "reason_contains", "missing"});
  }
  s.args = string_list(file, *run->get("args"), "run.args");
  s.cwd = opt_string(file, *run, "cwd").value_or("");
  if (const auto* exit = run->get("exit")) s.exit_code = static_cast<int>(exit->value_or<int64_t>(-1));

  if (const auto* outcome = root["outcome"].as_table()) {
    s.outcome_status = opt_string(file, *outcome, "status");
    if (const auto* error = outcome->get("error")) s.outcome_error = error_value(file, *error);
    s.reason_contains = opt_string(file, *outcome, "reason_contains");
    if (const auto* missing = outcome->get("missing")) {
      const auto* array = missing->as_array();
      if (!array) malformed(file, "outcome.missing must be an array of {dll, needed_by}");
      s.outcome_missing.emplace();
      for (const auto& item : *array) {
        const auto* t = item.as_table();
        if (!t) malformed(file, "outcome.missing must be an array of {dll, needed_by}");
        s.outcome_missing->emplace_back(opt_string(file, *t, "dll").value_or(""),
                                        opt_string(file, *t, "needed_by").value_or(""));
      }
    }
  }

  if (const auto* modules = root["modules"].as_table()) {
    static const std::set<std::string> kModuleKeys = {
        "status",       "path",        "found_by", "machine",  "load",      "file_version",    "api_set_host",
        "windows_path", "assumed",     "shadowed", "verdicts", "needed_by", "missing_exports", "missing_export_detail",
        "may_load",     "other_major", "owner"};
    for (const auto& [key, value] : *modules) {
      const auto* t = value.as_table();
      if (!t) malformed(file, "modules." + std::string(key.str()) + " must be a table");
      for (const auto& [k, v] : *t) {
        (void)v;
        if (!kModuleKeys.count(std::string(k.str())))
          malformed(file, "modules." + std::string(key.str()) + ": unknown key " + std::string(k.str()));
      }
      ModuleExpectation m;
      m.name = std::string(key.str());
      m.status = opt_string(file, *t, "status");
      m.path = opt_string(file, *t, "path");
      m.found_by = opt_string(file, *t, "found_by");
      m.load = opt_string(file, *t, "load");
      m.machine = opt_string(file, *t, "machine");
      m.file_version = opt_string(file, *t, "file_version");
      m.api_set_host = opt_string(file, *t, "api_set_host");
      m.windows_path = opt_string(file, *t, "windows_path");
      m.owner = opt_string(file, *t, "owner");
      if (const auto* a = t->get("assumed")) m.assumed = a->value_or(false);
      if (const auto* v = t->get("shadowed")) m.shadowed = string_list(file, *v, "shadowed");
      if (const auto* v = t->get("needed_by")) m.needed_by = string_list(file, *v, "needed_by");
      if (const auto* v = t->get("missing_exports")) m.missing_exports = string_list(file, *v, "missing_exports");
      m.missing_export_detail = opt_string(file, *t, "missing_export_detail");
      if (const auto* v = t->get("other_major")) m.other_major = string_list(file, *v, "other_major");
      if (const auto* v = t->get("may_load")) {
        const auto* mt = v->as_table();
        if (!mt) malformed(file, "may_load must be a table { \"dll\" = \"path\" or \"not_found\" }");
        m.may_load.emplace();
        for (const auto& [dll, where] : *mt)
          m.may_load->emplace_back(std::string(dll.str()), need_string(file, where, "may_load"));
      }
      if (const auto* v = t->get("verdicts")) {
        const auto* vt = v->as_table();
        if (!vt) malformed(file, "verdicts must be a table { \"path\" = \"verdict\" }");
        for (const auto& [p, verdict] : *vt)
          m.verdicts.emplace_back(std::string(p.str()), need_string(file, verdict, "verdicts"));
      }
      s.modules.push_back(std::move(m));
    }
  }
  if (const auto* absent = root.get("absent_modules")) s.absent_modules = string_list(file, *absent, "absent_modules");
  if (const auto* checks = root["json"].as_array()) {
    for (const auto& item : *checks) {
      const auto* t = item.as_table();
      // TOML has no null: `null = true` stands for `equals = null`.
      const bool null = t && t->get("null") && t->get("null")->value_or(false);
      const int tests = t ? (t->get("equals") != nullptr) + int(null) + (t->get("contains") != nullptr) : 0;
      if (!t || !t->get("pointer") || tests != 1)
        malformed(file, "[[json]] needs pointer and one of equals, null = true or contains");
      only_keys(*t, "[[json]]", {"pointer", "equals", "null", "contains"});
      JsonExpectation check;
      check.pointer = need_string(file, *t->get("pointer"), "json.pointer");
      if (t->get("contains")) {
        check.contains = need_string(file, *t->get("contains"), "json.contains");
      } else {
        check.equals = null ? json(nullptr) : to_json(*t->get("equals"));
      }
      s.json_checks.push_back(std::move(check));
    }
  }
  if (const auto* ids = root.get("finding_ids")) s.finding_ids = string_list(file, *ids, "finding_ids");
  if (const auto* findings = root["findings"].as_array()) {
    static const std::set<std::string> kFindingKeys = {"id",           "failure_mode",     "module",
                                                       "severity",     "message_contains", "fix_contains",
                                                       "fix_excludes", "says_contains",    "evidence"};
    for (const auto& item : *findings) {
      const auto* t = item.as_table();
      if (!t || !t->get("id")) malformed(file, "[[findings]] needs an id");
      for (const auto& [k, v] : *t) {
        (void)v;
        if (!kFindingKeys.count(std::string(k.str()))) malformed(file, "findings: unknown key " + std::string(k.str()));
      }
      FindingExpectation f;
      f.id = need_string(file, *t->get("id"), "findings.id");
      f.failure_mode = opt_string(file, *t, "failure_mode");
      f.module = opt_string(file, *t, "module");
      f.severity = opt_string(file, *t, "severity");
      f.message_contains = opt_string(file, *t, "message_contains");
      f.fix_contains = opt_string(file, *t, "fix_contains");
      f.fix_excludes = opt_string(file, *t, "fix_excludes");
      f.says_contains = opt_string(file, *t, "says_contains");
      if (const auto* evidence = t->get("evidence")) {
        const auto* et = evidence->as_table();
        if (!et) malformed(file, "findings.evidence must be a table { \"/pointer\" = value }");
        for (const auto& [pointer, value] : *et) f.evidence.emplace_back(std::string(pointer.str()), to_json(value));
      }
      s.findings.push_back(std::move(f));
    }
  }
  return s;
}

std::vector<Scenario> load_scenarios(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Scenario> out;
  for (const auto& f : files) out.push_back(load_scenario(f));
  return out;
}

void build_tree(const Scenario& scenario, const fs::path& fixtures, const fs::path& root) {
  fs::remove_all(root);
  fs::create_directories(root);
  for (const auto& f : scenario.files) {
    const fs::path dest = root / f.dest;
    if (f.kind == ScenarioFile::Kind::kFolder) {
      fs::create_directories(dest);
      continue;
    }
    if (f.kind == ScenarioFile::Kind::kFixtureSet) {
      // Every fixture file of one folder whose name matches the pattern ('*' = any run of characters).
      const fs::path pattern(f.source);
      const fs::path folder = fixtures / pattern.parent_path();
      const std::string name = pattern.filename().string();
      const auto star = name.find('*');
      const std::string head = name.substr(0, star), tail = star == std::string::npos ? "" : name.substr(star + 1);
      fs::create_directories(dest);
      int copied = 0;
      for (const auto& entry : fs::directory_iterator(folder)) {
        const std::string file = entry.path().filename().string();
        const bool match = star == std::string::npos
                               ? file == name
                               : file.size() >= head.size() + tail.size() && file.compare(0, head.size(), head) == 0 &&
                                     file.compare(file.size() - tail.size(), tail.size(), tail) == 0;
        if (!match || !entry.is_regular_file()) continue;
        fs::copy_file(entry.path(), dest / file, fs::copy_options::overwrite_existing);
        ++copied;
      }
      if (copied == 0) throw std::runtime_error(scenario.file.string() + ": no fixture matches " + f.source);
      continue;
    }
    fs::create_directories(dest.parent_path());
    switch (f.kind) {
      case ScenarioFile::Kind::kFixture: {
        const fs::path source = fixtures / f.source;
        if (!fs::is_regular_file(source))
          throw std::runtime_error(scenario.file.string() + ": fixture " + source.string() + " does not exist");
        fs::copy_file(source, dest, fs::copy_options::overwrite_existing);
        if (f.cut) {
          if (*f.cut >= fs::file_size(dest))
            throw std::runtime_error(scenario.file.string() + ": cut is not shorter than " + source.string());
          fs::resize_file(dest, *f.cut);
        }
        break;
      }
      case ScenarioFile::Kind::kEmpty:
      case ScenarioFile::Kind::kText: {
        std::ofstream out(dest, std::ios::binary);
        out << f.source;
        break;
      }
      case ScenarioFile::Kind::kFolder:
      case ScenarioFile::Kind::kFixtureSet: break;
    }
  }
}

std::string expand(const std::string& text, const fs::path& root, const fs::path& fixtures) {
  std::string out = text;
  replace_all(out, "{root}", root.string());
  replace_all(out, "{fixtures}", fixtures.string());
  return out;
}

std::string relative_to_root(const std::string& host_path, const fs::path& root) {
  const std::string prefix = root.string() + "/";
  if (host_path.compare(0, prefix.size(), prefix) == 0) return host_path.substr(prefix.size());
  return host_path;
}

const json* find_module(const json& report, const std::string& name) {
  if (!report.contains("modules")) return nullptr;
  for (const auto& m : report["modules"])
    if (m.contains("name") && m["name"].is_string() && lower(m["name"].get<std::string>()) == lower(name)) return &m;
  return nullptr;
}

std::vector<std::string> check_report(const Scenario& s, const json& report, int exit_code, const fs::path& root) {
  std::vector<std::string> failures;
  const auto fail = [&](const std::string& line) { failures.push_back(line); };
  const auto rel = [&](const json& value) -> std::string {
    return value.is_string() ? relative_to_root(value.get<std::string>(), root) : describe(value);
  };

  if (s.exit_code && *s.exit_code != exit_code)
    fail("exit code " + std::to_string(exit_code) + ", expected " + std::to_string(*s.exit_code));
  if (s.healthy && exit_code != 0) fail("healthy, but the exit code is " + std::to_string(exit_code));

  const json& outcome = report.contains("outcome") ? report["outcome"] : json();
  if (s.outcome_status && outcome.value("status", json()) != *s.outcome_status)
    fail("outcome.status " + describe(outcome.value("status", json())) + ", expected " + *s.outcome_status);
  if (s.outcome_error && outcome.value("error", json()) != *s.outcome_error)
    fail("outcome.error " + describe(outcome.value("error", json())) + ", expected " + describe(*s.outcome_error));
  if (s.reason_contains) {
    const std::string reason = outcome.value("reason", json()).is_string() ? outcome["reason"].get<std::string>() : "";
    if (reason.find(*s.reason_contains) == std::string::npos)
      fail("outcome.reason \"" + reason + "\" does not contain \"" + *s.reason_contains + "\"");
  }
  if (s.outcome_missing) {
    std::vector<std::pair<std::string, std::string>> got;
    for (const auto& m : outcome.value("missing", json::array()))
      got.emplace_back(lower(m.value("dll", "")), lower(m.value("needed_by", "")));
    std::vector<std::pair<std::string, std::string>> want;
    for (const auto& [dll, by] : *s.outcome_missing) want.emplace_back(lower(dll), lower(by));
    if (got != want) {
      std::string text;
      for (const auto& [dll, by] : got) text += " " + dll + "<-" + by;
      std::string expected;
      for (const auto& [dll, by] : want) expected += " " + dll + "<-" + by;
      fail("outcome.missing [" + text + " ], expected [" + expected + " ]");
    }
  }

  const json findings = report.value("findings", json::array());
  // Every scenario: no fix copies a file into the folder it is already in (issue 41).
  static const std::regex copy_item(R"(Copy-Item -LiteralPath ('.*') -Destination '((?:[^']|'')*)')");
  static const std::regex literal(R"('((?:[^']|'')*)')");
  for (const auto& f : findings) {
    for (const auto& line : f.value("fix", json::array())) {
      const std::string text = line.is_string() ? line.get<std::string>() : std::string();
      std::smatch m;
      if (!std::regex_search(text, m, copy_item)) continue;
      const std::string destination = lower(m[2].str());
      const std::string sources = m[1].str();
      for (auto it = std::sregex_iterator(sources.begin(), sources.end(), literal); it != std::sregex_iterator();
           ++it) {
        const std::string source = lower((*it)[1].str());
        const auto cut = source.find_last_of("\\/");
        if (cut != std::string::npos && source.substr(0, cut) == destination)
          fail("finding " + f.value("id", "") + " copies a file onto itself: " + text);
      }
    }
  }
  if (s.healthy) {
    // `dlldoctor check` runs several processes: its verdict says whether each loads.
    if (is_check_report(report)) {
      if (report["verdict"].value("tone", "") != "healthy") fail("healthy, but the verdict is not HEALTHY");
    } else if (report.value("outcome", json::object()).value("status", "") != "ok") {
      fail("healthy, but the outcome fails");
    }
    for (const auto& f : findings) {
      const std::string severity = f.value("severity", "");
      if (severity == "error" || severity == "warning")
        fail("healthy, but the report has " + severity + " " + f.value("id", "") + ": " + f.value("message", ""));
    }
  }
  if (s.finding_ids) {
    std::vector<std::string> got, want = *s.finding_ids;
    for (const auto& f : findings) got.push_back(f.value("id", ""));
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (got != want) {
      std::string text;
      for (const auto& id : got) text += " " + id;
      std::string expected;
      for (const auto& id : want) expected += " " + id;
      fail("finding ids [" + text + " ], expected [" + expected + " ]");
    }
  }
  for (const auto& want : s.findings) {
    const json* got = nullptr;
    for (const auto& f : findings) {
      if (f.value("id", "") != want.id) continue;
      if (want.module &&
          lower(f.value("module", json()).is_string() ? f["module"].get<std::string>() : "") != lower(*want.module))
        continue;
      got = &f;
      break;
    }
    const std::string where = "finding " + want.id + (want.module ? " (" + *want.module + ")" : "") + ": ";
    if (!got) {
      fail(where + "not in the report");
      continue;
    }
    const auto text_of = [&](const char* key) {
      return (*got).value(key, json()).is_string() ? (*got)[key].get<std::string>()
                                                   : describe((*got).value(key, json()));
    };
    if (want.failure_mode && text_of("failure_mode") != *want.failure_mode)
      fail(where + "failure_mode " + text_of("failure_mode") + ", expected " + *want.failure_mode);
    if (want.severity && text_of("severity") != *want.severity)
      fail(where + "severity " + text_of("severity") + ", expected " + *want.severity);
    const std::string root_text = root.string();
    const auto with_root = [&](std::string text) {
      replace_all(text, "{root}", root_text);
      return text;
    };
    if (want.message_contains && text_of("message").find(with_root(*want.message_contains)) == std::string::npos)
      fail(where + "message \"" + text_of("message") + "\" does not contain \"" + *want.message_contains + "\"");
    std::string fix;
    for (const auto& line : (*got).value("fix", json::array())) fix += line.get<std::string>() + "\n";
    if (want.fix_contains && fix.find(with_root(*want.fix_contains)) == std::string::npos)
      fail(where + "fix does not contain \"" + *want.fix_contains + "\":\n" + fix);
    if (want.fix_excludes && fix.find(with_root(*want.fix_excludes)) != std::string::npos)
      fail(where + "fix contains \"" + *want.fix_excludes + "\", which does not help here:\n" + fix);
    std::string says;
    for (const auto& line : (*got).value("says", json::array())) says += line.get<std::string>() + "\n";
    if (want.says_contains && says.find(with_root(*want.says_contains)) == std::string::npos)
      fail(where + "what the user sees does not contain \"" + *want.says_contains + "\":\n" + says);
    for (const auto& [pointer, expected] : want.evidence) {
      json value;
      try {
        value = (*got).at("evidence").at(json::json_pointer(pointer));
      } catch (const std::exception&) {
        fail(where + "evidence " + pointer + " is missing");
        continue;
      }
      const json want_value = expected.is_string() ? json(with_root(expected.get<std::string>())) : expected;
      if (value != want_value)
        fail(where + "evidence " + pointer + " " + describe(value) + ", expected " + describe(want_value));
    }
  }

  for (const auto& m : s.modules) {
    const json* got = find_module(report, m.name);
    const std::string where = "module " + m.name + ": ";
    if (!got) {
      fail(where + "not in the report");
      continue;
    }
    const auto check_field = [&](const char* key, const std::optional<std::string>& want) {
      if (!want) return;
      const json value = got->value(key, json());
      const std::string shown = std::string(key) == "path" ? rel(value) : describe(value);
      if (shown != *want) fail(where + key + " " + shown + ", expected " + *want);
    };
    check_field("status", m.status);
    check_field("path", m.path);
    check_field("found_by", m.found_by);
    check_field("load", m.load);
    check_field("machine", m.machine);
    check_field("file_version", m.file_version);
    check_field("api_set_host", m.api_set_host);
    check_field("windows_path", m.windows_path);
    if (m.owner) {
      // "none", or "<kind> <name>[ <version>]": who installed the copy (issue 41).
      const json owner = got->value("owner", json());
      std::string shown = "none";
      if (owner.is_object()) {
        shown = owner.value("kind", "") + " " + owner.value("name", "");
        if (owner.value("version", json()).is_string()) shown += " " + owner["version"].get<std::string>();
      }
      if (shown != *m.owner) fail(where + "owner " + shown + ", expected " + *m.owner);
    }
    if (m.assumed && got->value("assumed", json()) != *m.assumed)
      fail(where + "assumed " + describe(got->value("assumed", json())) + ", expected " +
           (*m.assumed ? "true" : "false"));
    if (m.shadowed) {
      std::vector<std::string> paths;
      for (const auto& p : got->value("shadowed", json::array())) paths.push_back(rel(p));
      if (sorted(paths) != sorted(*m.shadowed))
        fail(where + "shadowed " + join(sorted(paths)) + ", expected " + join(sorted(*m.shadowed)));
    }
    for (const auto& [path, verdict] : m.verdicts) {
      std::string seen;
      for (const auto& c : got->value("candidates", json::array())) {
        const json p = c.value("path", json());
        const json wp = c.value("windows_path", json());
        if ((p.is_string() && rel(p) == path) || (wp.is_string() && wp.get<std::string>() == path))
          seen = describe(c.value("verdict", json()));
      }
      if (seen.empty())
        fail(where + "no candidate " + path);
      else if (seen != verdict)
        fail(where + "candidate " + path + " verdict " + seen + ", expected " + verdict);
    }
    if (m.needed_by) {
      std::set<std::string> have;
      for (const auto& n : got->value("needed_by", json::array()))
        if (n.is_string()) have.insert(lower(n.get<std::string>()));
      for (const auto& n : *m.needed_by)
        if (!have.count(lower(n))) fail(where + "not needed_by " + n + " (has " + join(have) + ")");
    }
    if (m.missing_exports) {
      std::vector<std::string> names;
      for (const auto& e : got->value("missing_exports", json::array()))
        names.push_back(describe(e.value("function", json())));
      if (sorted(names) != sorted(*m.missing_exports))
        fail(where + "missing_exports " + join(sorted(names)) + ", expected " + join(sorted(*m.missing_exports)));
    }
    if (m.may_load) {
      std::vector<std::string> seen, wanted;
      for (const auto& hint : got->value("may_load", json::array())) {
        const json path = hint.value("path", json());
        seen.push_back(lower(describe(hint.value("dll", json()))) + " -> " +
                       (hint.value("status", "") == "not_found" ? std::string("not_found")
                        : path.is_string()                      ? rel(path)
                                                                : describe(path)));
      }
      for (const auto& [dll, place] : *m.may_load) wanted.push_back(lower(dll) + " -> " + place);
      if (sorted(seen) != sorted(wanted))
        fail(where + "may_load " + join(sorted(seen)) + ", expected " + join(sorted(wanted)));
    }
    if (m.other_major) {
      std::vector<std::string> names;
      for (const auto& n : got->value("other_major", json::array())) names.push_back(lower(describe(n)));
      std::vector<std::string> wanted;
      for (const auto& n : *m.other_major) wanted.push_back(lower(n));
      if (sorted(names) != sorted(wanted))
        fail(where + "other_major " + join(sorted(names)) + ", expected " + join(sorted(wanted)));
    }
    if (m.missing_export_detail) {
      std::string details;
      for (const auto& e : got->value("missing_exports", json::array())) details += e.value("detail", "") + "\n";
      if (details.find(*m.missing_export_detail) == std::string::npos)
        fail(where + "no missing export's detail contains \"" + *m.missing_export_detail + "\":\n" + details);
    }
  }
  for (const auto& name : s.absent_modules)
    if (find_module(report, name)) fail("module " + name + " is in the report, expected absent");

  for (const auto& check : s.json_checks) {
    json want = check.equals;
    if (want.is_string()) want = expand(want.get<std::string>(), root, {});
    json::json_pointer pointer;
    try {
      pointer = json::json_pointer(check.pointer);
    } catch (const json::exception& e) {
      fail("json " + check.pointer + ": bad pointer (" + e.what() + ")");
      continue;
    }
    if (!report.contains(pointer)) {
      fail("json " + check.pointer + ": absent, expected " + (check.contains ? *check.contains : want.dump()));
    } else if (check.contains) {
      const json& got = report.at(pointer);
      if (!got.is_string() || got.get<std::string>().find(*check.contains) == std::string::npos)
        fail("json " + check.pointer + ": " + got.dump() + ", expected a text containing " + *check.contains);
    } else if (report.at(pointer) != want)
      fail("json " + check.pointer + ": " + report.at(pointer).dump() + ", expected " + want.dump());
  }
  return failures;
}

bool is_check_report(const nlohmann::json& report) { return report.value("schema", "") == "dlldoctor.check/1"; }

std::vector<KnownFailure> load_known_failures(const fs::path& file) {
  std::vector<KnownFailure> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    KnownFailure k;
    if (!(words >> k.name)) continue;
    std::getline(words, k.reason);
    const auto start = k.reason.find_first_not_of(" \t");
    k.reason = start == std::string::npos ? "" : k.reason.substr(start);
    if (k.reason.empty()) throw std::runtime_error(file.string() + ": " + k.name + " has no reason");
    out.push_back(std::move(k));
  }
  return out;
}

namespace {

// The fixture that can stand in for a DLL an install step brings: same name, machine and file version;
// with no version asked, the one of the fixtures' main set (x64/, x86/), which the scenario trees use.
std::optional<fs::path> stand_in_fixture(const std::string& name, const std::string& machine,
                                         const std::string& version, const fs::path& fixtures,
                                         const std::string& dlldoctor) {
  static std::map<std::string, nlohmann::json> described;  // fixture path -> `dlldoctor inspect` JSON
  std::vector<fs::path> names;
  for (const auto& entry : fs::recursive_directory_iterator(fixtures)) names.push_back(entry.path());
  std::sort(names.begin(), names.end(), [](const fs::path& a, const fs::path& b) {
    const auto depth = [](const fs::path& p) { return std::distance(p.begin(), p.end()); };
    return depth(a) != depth(b) ? depth(a) < depth(b) : a < b;
  });
  for (const fs::path& path : names) {
    const fs::directory_entry entry(path);
    if (!entry.is_regular_file() || lower(entry.path().filename().string()) != lower(name)) continue;
    const std::string key = entry.path().string();
    if (!described.count(key)) {
      const auto out = run_process({dlldoctor, "inspect", key, "--format", "json"}).out;
      described[key] = nlohmann::json::parse(out, nullptr, false);
    }
    const nlohmann::json& d = described[key];
    const nlohmann::json* image = d.is_object() && d.contains("files") ? &d["files"][0] : &d;
    if (!image->is_object() || image->value("machine", "") != machine) continue;
    const nlohmann::json version_value = image->value("file_version", nlohmann::json());
    if (version.empty() || (version_value.is_string() && version_value.get<std::string>() == version))
      return entry.path();
  }
  return std::nullopt;
}

// A path under one scenario tree moved to the same place under another.
std::string moved(const std::string& path, const std::string& from, const std::string& to) {
  return path.rfind(from, 0) == 0 ? to + path.substr(from.size()) : path;
}

// Carries out the plan's steps for real on `planned` (a copy of `root`) and returns dlldoctor's
// arguments for the next run, or why a step cannot be carried out here.
}  // namespace

PlannedRun carry_out_plan(const Scenario& s, const nlohmann::json& report, const fs::path& root,
                          const fs::path& planned, const fs::path& fixtures, const std::string& dlldoctor) {
  using nlohmann::json;
  PlannedRun run;
  const std::string from = root.string(), to = planned.string();
  std::vector<std::string> args;
  bool has_path = false;
  for (std::size_t i = 0; i < s.args.size(); ++i) {
    if (s.args[i] == "--path" && i + 1 < s.args.size()) {
      has_path = true;
      ++i;
      continue;
    }
    args.push_back(expand(s.args[i], planned, fixtures));
  }
  // PATH as the process had it: the report's entries, written as they were given.
  std::vector<std::string> path;
  for (const json& entry : report["environment"]["path"]) path.push_back(moved(entry["entry"], from, to));
  bool use_registry_path = false, path_changed = false;
  auto host = [&](const json& step, const char* field) {
    std::vector<std::string> out;
    const json values = step.value("host", json::object()).value(field, json::array());
    for (const json& value : values) out.push_back(moved(value, from, to));
    return out;
  };
  auto with_stream = [](const fs::path& file) { return fs::path(file.string() + ":Zone.Identifier"); };
  for (const json& step : report["plan"]["steps"]) {
    const std::string kind = step["kind"];
    if (kind == "rename") {
      for (const std::string& p : host(step, "path")) {
        fs::rename(p, p + ".bak");
        if (fs::exists(with_stream(p))) fs::rename(with_stream(p), with_stream(p + ".bak"));
      }
    } else if (kind == "copy") {
      const std::string folder = host(step, "to").at(0);
      for (const std::string& p : host(step, "from")) {
        const fs::path target = fs::path(folder) / fs::path(p).filename();
        fs::create_directories(folder);
        fs::copy_file(p, target, fs::copy_options::overwrite_existing);
        if (fs::exists(with_stream(p)))
          fs::copy_file(with_stream(p), with_stream(target), fs::copy_options::overwrite_existing);
      }
    } else if (kind == "install") {
      const std::string folder = host(step, "to").at(0);
      for (const json& listed : step["names"]) {
        const std::string name = listed;
        // `check`'s processes are all 64-bit ones.
        const std::string machine = report.value("process", json::object()).value("machine", "x64");
        auto fixture = stand_in_fixture(name, machine, step.value("version", ""), fixtures, dlldoctor);
        if (!fixture) {
          run.why_not = "no fixture of " + name + " " + step.value("version", "") + " to stand in for the install";
          return run;
        }
        fs::create_directories(folder);
        fs::copy_file(*fixture, fs::path(folder) / name, fs::copy_options::overwrite_existing);
      }
    } else if (kind == "unblock") {
      for (const std::string& p : host(step, "path")) fs::remove(with_stream(p));
    } else if (kind == "path_add") {
      path_changed = true;
      for (const json& entry : step["entry"]) {
        const std::string text = moved(entry, from, to);
        if (step.value("position", "first") == "last") {
          path.push_back(text);
        } else {
          path.insert(path.begin(), text);
        }
      }
    } else if (kind == "path_remove") {
      path_changed = true;
      for (const json& entry : step["entry"]) {
        const std::string text = moved(entry, from, to);
        path.erase(std::remove(path.begin(), path.end(), text), path.end());
      }
    } else if (kind == "path_replace") {
      path_changed = true;
      const std::string cut = moved(step["entry"][0], from, to);
      const std::string with = moved(step["with"], from, to);
      std::replace(path.begin(), path.end(), cut, with);
    } else if (kind == "new_terminal") {
      use_registry_path = true;
    } else {
      run.why_not = "a step of kind " + kind + " in the checked steps";
      return run;
    }
  }
  if (!use_registry_path && (has_path || path_changed)) {
    std::string joined;
    for (const std::string& entry : path) joined += (joined.empty() ? "" : ";") + entry;
    args.insert(args.end(), {"--path", joined});
  }
  run.args = std::move(args);
  return run;
}

}  // namespace dlldoctor::test
