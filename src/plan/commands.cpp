#include "plan/commands.hpp"

#include <fmt/format.h>

#include "core/utf8.hpp"
#include "dlldoctor/core/paths.hpp"
#include "rules/fix_template.hpp"

namespace dlldoctor::plan {

namespace {

using rules::powershell_literal;

std::string shown(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& value : values) out += (out.empty() ? "" : ", ") + escape_bytes(value, Escape::Controls);
  return out;
}

}  // namespace

std::string powershell_list(const std::vector<std::string>& values, const rules::CommandPaths& paths,
                            std::vector<rules::Placeholder>* used) {
  std::string out;
  for (const std::string& value : values)
    out += (out.empty() ? "" : ", ") + powershell_literal(paths.in_command(value, used));
  return out;
}

std::string file_in_folder(const std::string& folder, const std::string& name) {
  const char separator = folder.find('\\') != std::string::npos ? '\\' : '/';
  return folder.empty() || folder.back() == separator ? folder + name : folder + separator + name;
}

std::string scope_name(const std::string& scope) {
  return scope == "machine" ? "Machine" : scope == "process" ? "Process" : "User";
}

std::vector<std::string> step_commands(const Step& step, const rules::CommandPaths& paths,
                                       std::vector<rules::Placeholder>* used) {
  const rules::FixStep& c = step.change;
  std::vector<std::string> out;
  auto literal = [&](const std::string& value) { return powershell_literal(paths.in_command(value, used)); };
  auto list = [&](const std::vector<std::string>& values) { return powershell_list(values, paths, used); };
  const std::string scope = c.value("scope").empty() ? "user" : c.value("scope");
  if (c.kind == "rename") {
    for (const std::string& path : c.values("path"))
      out.push_back(fmt::format("Rename-Item -LiteralPath {} -NewName {}", literal(path),
                                powershell_literal(base_name(path) + ".bak")));
  } else if (c.kind == "copy") {
    out.push_back(
        fmt::format("Copy-Item -LiteralPath {} -Destination {}", list(c.values("from")), literal(c.value("to"))));
  } else if (c.kind == "install") {
    // `command` is PowerShell the rules wrote (a family's install line); `what` is prose; `copy_from`
    // names files in a folder only the user knows (the unpacked zip), `unpack` a download only the user has:
    // the line says how, placeholder and all.
    if (!c.value("command").empty()) {
      out.push_back(c.value("command"));
    } else {
      out.push_back("# " + escape_bytes(c.value("what"), Escape::Controls));
      if (!c.value("copy_from").empty())
        out.push_back(fmt::format("Copy-Item -Path {} -Destination {}", powershell_literal(c.value("copy_from")),
                                  literal(c.value("to"))));
      // NVIDIA's archives hold one folder named as the archive, with bin inside: `to` is that bin, so the
      // archive is unpacked two levels up (tar makes the folder).
      if (!c.value("unpack").empty())
        out.push_back(fmt::format("tar -xf {} -C {}", powershell_literal("<the downloaded " + c.value("unpack") + ">"),
                                  literal(folder_of(folder_of(c.value("to"))))));
    }
    std::vector<std::string> expected;
    for (const std::string& name : c.values("names")) expected.push_back(file_in_folder(c.value("to"), name));
    out.push_back("# then check: True for each");
    out.push_back(fmt::format("Test-Path -LiteralPath {}", list(expected)));
  } else if (c.kind == "path_add") {
    const bool first = c.value("position") != "last";
    for (const std::string& entry : c.values("entry")) {
      const std::string quoted = literal(entry);
      out.push_back(first ? fmt::format("$env:Path = {} + ';' + $env:Path   # this terminal", quoted)
                          : fmt::format("$env:Path = $env:Path + ';' + {}   # this terminal", quoted));
      if (scope == "process") continue;
      const std::string stored = fmt::format("[Environment]::GetEnvironmentVariable('Path', '{}')", scope_name(scope));
      out.push_back(fmt::format("[Environment]::SetEnvironmentVariable('Path', {}, '{}')   # new terminals{}",
                                first ? quoted + " + ';' + " + stored : stored + " + ';' + " + quoted,
                                scope_name(scope), scope == "machine" ? ", as administrator" : ""));
    }
  } else if (c.kind == "path_remove") {
    const std::string entries = list(c.values("entry"));
    out.push_back(fmt::format("$env:Path = ($env:Path -split ';' | Where-Object {{ @({}) -notcontains $_ }}) -join ';'",
                              entries));
    if (scope != "process") {
      out.push_back(fmt::format("$p = [Environment]::GetEnvironmentVariable('Path', '{}')", scope_name(scope)));
      out.push_back(fmt::format("$p = ($p -split ';' | Where-Object {{ @({}) -notcontains $_ }}) -join ';'", entries));
      out.push_back(fmt::format("[Environment]::SetEnvironmentVariable('Path', $p, '{}')", scope_name(scope)));
    }
  } else if (c.kind == "path_replace") {
    // In place, one whole entry at a time: a text replace would also change the longer entries a
    // cut-short one is the start of.
    const std::string swap = fmt::format("ForEach-Object {{ if (@({}) -contains $_) {{ {} }} else {{ $_ }} }}",
                                         list(c.values("entry")), literal(c.value("with")));
    out.push_back(fmt::format("$env:Path = ($env:Path -split ';' | {}) -join ';'   # this terminal", swap));
    if (scope != "process") {
      out.push_back(fmt::format("$p = [Environment]::GetEnvironmentVariable('Path', '{}')", scope_name(scope)));
      out.push_back(fmt::format("$p = ($p -split ';' | {}) -join ';'", swap));
      out.push_back(fmt::format("[Environment]::SetEnvironmentVariable('Path', $p, '{}')   # new terminals{}",
                                scope_name(scope), scope == "machine" ? ", as administrator" : ""));
    }
  } else if (c.kind == "unblock") {
    out.push_back(fmt::format("Unblock-File -LiteralPath {}", list(c.values("path"))));
  } else if (c.kind == "new_terminal") {
    out.push_back("# close this terminal (and restart the IDE), then open a new one");
  } else {
    out.push_back("# " + escape_bytes(c.value("what"), Escape::Controls));
  }
  return out;
}

std::string step_summary(const Step& step) {
  const rules::FixStep& c = step.change;
  const std::string scope = c.value("scope").empty() ? "user" : c.value("scope");
  const std::string where = scope == "process" ? "this process's PATH" : "PATH (" + scope + ")";
  if (c.kind == "rename") {
    const auto& paths = c.values("path");
    return paths.size() == 1
               ? "Rename " + shown(paths) + " to " + escape_bytes(base_name(paths.front()) + ".bak", Escape::Controls)
               : "Rename " + shown(paths) + " (each to <name>.bak)";
  }
  if (c.kind == "copy")
    return "Copy " + shown(c.values("from")) + " to " + escape_bytes(c.value("to"), Escape::Controls);
  if (c.kind == "install")
    return "Install " + shown(c.values("names")) + " into " + escape_bytes(c.value("to"), Escape::Controls);
  if (c.kind == "path_add")
    return fmt::format("Put {} {} on {}", shown(c.values("entry")), c.value("position") == "last" ? "last" : "first",
                       where);
  if (c.kind == "path_remove") return "Take " + shown(c.values("entry")) + " off " + where;
  if (c.kind == "path_replace")
    return "Put " + escape_bytes(c.value("with"), Escape::Controls) + " in place of " + shown(c.values("entry")) +
           " on " + where;
  if (c.kind == "unblock") return "Unblock " + shown(c.values("path"));
  if (c.kind == "new_terminal") return "Open a new terminal";
  return escape_bytes(c.value("what"), Escape::Controls);
}

}  // namespace dlldoctor::plan
