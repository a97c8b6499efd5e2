#include "dlldoctor/report/fix_script.hpp"

#include <fmt/format.h>

#include "core/utf8.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/env/environment.hpp"
#include "plan/commands.hpp"
#include "rules/fix_template.hpp"

namespace dlldoctor::report {

namespace {

using rules::powershell_literal;

// The helpers every script carries. Each checks what it finds first, so a second run reports "already
// done" instead of acting again; cmdlets honour -WhatIf through $WhatIfPreference.
constexpr const char* kHelpers = R"ps1([CmdletBinding(SupportsShouldProcess = $true)]
param()
$ErrorActionPreference = 'Stop'
$script:isAdmin = ([Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()).IsInRole(
  [Security.Principal.WindowsBuiltInRole]::Administrator)
$script:left = @()      # steps not done, and why
$script:pathChanged = $false
# A variable holds at most 32,767 characters; a longer PATH is cut by Windows when a process starts.
$script:maxPath = 32767

function Step-Allowed([int]$Number, [bool]$NeedsAdmin) {
  if ($NeedsAdmin -and -not $script:isAdmin) {
    $script:left += "step ${Number}: needs an administrator PowerShell (run this script again as administrator)"
    return $false
  }
  return $true
}

function Test-Version([string]$Path, [string]$Version) {
  if (-not $Version) { return $true }
  $raw = (Get-Item -LiteralPath $Path).VersionInfo.FileVersionRaw
  if ($raw -and $raw.ToString() -ne $Version) {
    Write-Warning "$Path is version $raw, not $Version as dlldoctor read it: left alone"
    return $false
  }
  return $true
}

function Rename-ToBak([int]$Number, [string]$Path, [string]$Version) {
  $bak = $Path + '.bak'
  if (-not (Test-Path -LiteralPath $Path -PathType Leaf)) {
    if (Test-Path -LiteralPath $bak) { Write-Host "step ${Number}: already done ($bak)"; return }
    $script:left += "step ${Number}: $Path is not there"
    return
  }
  if (-not (Test-Version $Path $Version)) { $script:left += "step ${Number}: $Path changed since dlldoctor read it"; return }
  if (Test-Path -LiteralPath $bak) { $script:left += "step ${Number}: $bak exists already; move one of the two away"; return }
  Rename-Item -LiteralPath $Path -NewName (Split-Path -Leaf $bak)
  Write-Host "step ${Number}: renamed $Path to $bak"
}

function Copy-WithBak([int]$Number, [string]$From, [string]$To, [string]$Version) {
  if (-not (Test-Path -LiteralPath $From -PathType Leaf)) { $script:left += "step ${Number}: $From is not there"; return }
  if (-not (Test-Version $From $Version)) { $script:left += "step ${Number}: $From changed since dlldoctor read it"; return }
  $target = Join-Path $To (Split-Path -Leaf $From)
  if (Test-Path -LiteralPath $target -PathType Leaf) {
    if ((Get-FileHash -LiteralPath $target).Hash -eq (Get-FileHash -LiteralPath $From).Hash) {
      Write-Host "step ${Number}: already done ($target)"
      return
    }
    if (-not (Test-Path -LiteralPath ($target + '.bak'))) { Copy-Item -LiteralPath $target -Destination ($target + '.bak') }
  }
  if (-not (Test-Path -LiteralPath $To)) { New-Item -ItemType Directory -Path $To | Out-Null }
  Copy-Item -LiteralPath $From -Destination $target -Force
  Write-Host "step ${Number}: copied $From to $To"
}

function Confirm-Installed([int]$Number, [string]$What, [string[]]$Files) {
  $missing = @($Files | Where-Object { -not (Test-Path -LiteralPath $_ -PathType Leaf) })
  if ($missing.Count -eq 0) { Write-Host "step ${Number}: done ($What)"; return }
  $script:left += "step ${Number}: install $What; missing still: $($missing -join ', ')"
}

function Get-PathKey([string]$Scope) {
  if ($Scope -eq 'Machine') { return 'HKLM:\SYSTEM\CurrentControlSet\Control\Session Manager\Environment' }
  return 'HKCU:\Environment'
}

function Same-Entry([string]$A, [string]$B) { return $A.TrimEnd('\') -ieq $B.TrimEnd('\') }

function Add-PathEntry([int]$Number, [string]$Entry, [bool]$First, [string]$Scope) {
  if ($First) { $env:Path = $Entry + ';' + $env:Path } else { $env:Path = $env:Path + ';' + $Entry }
  if ($Scope -eq 'Process') { Write-Host "step ${Number}: $Entry is on this session's PATH"; return }
  $key = Get-PathKey $Scope
  # The stored value, %VARIABLES% unexpanded, so that they stay variables.
  $raw = (Get-Item -LiteralPath $key).GetValue('Path', '', 'DoNotExpandEnvironmentNames')
  $parts = @($raw -split ';' | Where-Object { $_ })
  if (@($parts | Where-Object { Same-Entry $_ $Entry }).Count -gt 0) { Write-Host "step ${Number}: already done ($Scope PATH has $Entry)"; return }
  if ($First) { $value = (@($Entry) + $parts) -join ';' } else { $value = ($parts + @($Entry)) -join ';' }
  if ($value.Length -gt $script:maxPath) { $script:left += "step ${Number}: the $Scope PATH would be $($value.Length) characters, more than a variable holds"; return }
  Set-ItemProperty -LiteralPath $key -Name Path -Value $value -Type ExpandString
  $script:pathChanged = $true
  Write-Host "step ${Number}: $Entry added to the $Scope PATH"
}

function Remove-PathEntry([int]$Number, [string[]]$Entries, [string]$Scope) {
  $env:Path = (@($env:Path -split ';' | Where-Object { $e = $_; -not @($Entries | Where-Object { Same-Entry $_ $e }).Count })) -join ';'
  if ($Scope -eq 'Process') { return }
  $key = Get-PathKey $Scope
  $raw = (Get-Item -LiteralPath $key).GetValue('Path', '', 'DoNotExpandEnvironmentNames')
  $kept = @($raw -split ';' | Where-Object { $e = $_; -not @($Entries | Where-Object { Same-Entry $_ $e }).Count })
  $value = $kept -join ';'
  if ($value -eq $raw) { Write-Host "step ${Number}: already done"; return }
  Set-ItemProperty -LiteralPath $key -Name Path -Value $value -Type ExpandString
  $script:pathChanged = $true
  Write-Host "step ${Number}: removed from the $Scope PATH: $($Entries -join ', ')"
}

function Replace-PathEntry([int]$Number, [string]$Entry, [string]$With, [string]$Scope) {
  $env:Path = (@($env:Path -split ';' | ForEach-Object { if (Same-Entry $_ $Entry) { $With } else { $_ } })) -join ';'
  if ($Scope -eq 'Process') { Write-Host "step ${Number}: $With in place of $Entry on this session's PATH"; return }
  $key = Get-PathKey $Scope
  $raw = (Get-Item -LiteralPath $key).GetValue('Path', '', 'DoNotExpandEnvironmentNames')
  $value = (@($raw -split ';' | ForEach-Object { if (Same-Entry $_ $Entry) { $With } else { $_ } })) -join ';'
  if ($value -eq $raw) { Write-Host "step ${Number}: already done ($Scope PATH has no $Entry)"; return }
  Set-ItemProperty -LiteralPath $key -Name Path -Value $value -Type ExpandString
  $script:pathChanged = $true
  Write-Host "step ${Number}: $With in place of $Entry in the $Scope PATH"
}

function Unblock-Files([int]$Number, [string[]]$Files) {
  foreach ($file in $Files) {
    if (-not (Test-Path -LiteralPath $file -PathType Leaf)) { $script:left += "step ${Number}: $file is not there"; continue }
    Unblock-File -LiteralPath $file
  }
  Write-Host "step ${Number}: unblocked $($Files -join ', ')"
}

)ps1";

constexpr const char* kEnding = R"ps1(
if ($script:pathChanged -and -not $WhatIfPreference) {
  # Setting any variable through .NET tells running programs (Explorer) that the environment changed, so
  # terminals opened from it see the new PATH.
  [Environment]::SetEnvironmentVariable('DLLDOCTOR_REFRESH', '1', 'User')
  [Environment]::SetEnvironmentVariable('DLLDOCTOR_REFRESH', $null, 'User')
}
if ($script:left.Count -gt 0) {
  Write-Warning 'Not done yet:'
  $script:left | ForEach-Object { Write-Warning "  $_" }
  Write-Host 'Mend those, then run this script again: the steps already done are left as they are.'
} else {
  Write-Host 'Done. Open a new terminal (and restart the IDE), then run dlldoctor again: it should say HEALTHY.'
}
)ps1";

// fix_script has refused every host path, so no value here needs a placeholder.
std::string literals(const std::vector<std::string>& values) {
  return "@(" + plan::powershell_list(values, rules::CommandPaths{}) + ")";
}

std::string comment(const std::string& text) { return "# " + escape_bytes(text, Escape::Controls); }

// Folders only an administrator may change.
bool protected_folder(const std::string& path) {
  const std::string lower = ascii_lower(path);
  for (const char* root : {"c:\\program files", "c:\\windows", "c:\\programdata"}) {
    const std::string r(root);
    if (lower.compare(0, r.size(), r) == 0 &&
        (lower.size() == r.size() || lower[r.size()] == '\\' || lower.compare(r.size(), 6, " (x86)") == 0))
      return true;
  }
  return false;
}

}  // namespace

Result<std::string> fix_script(const plan::Plan& plan, const ScriptHeader& header) {
  // Every path the script acts on must be one the Windows machine knows.
  for (const plan::Step& step : plan.steps) {
    for (const char* field : {"path", "from", "to", "entry", "with"}) {
      // An entry to take off PATH is matched as written (empty, relative, quoted); only a host path is wrong.
      const bool as_written =
          (step.change.kind == "path_remove" || step.change.kind == "path_replace") && std::string(field) == "entry";
      for (const std::string& value : step.change.values(field)) {
        const std::string unquoted = value.size() >= 2 && value.front() == '"' ? value.substr(1) : value;
        if (as_written ? !unquoted.empty() && unquoted.front() == '/' : !env::is_windows_absolute(value))
          return Error{
              fmt::format("--fix-script: the plan names {}, which is not a Windows path; give --sysroot, or --map "
                          "HOSTDIR=WINDOWSDIR for each copied folder, so that the script names the folders the Windows "
                          "machine has",
                          value)};
      }
    }
  }
  // UTF-8 with a byte order mark: Windows PowerShell 5.1 reads a file without one in the local code page, so
  // `powershell -File` would mangle C:\Users\José; PowerShell 7 reads both the same.
  std::string out = header.byte_order_mark ? "\xEF\xBB\xBF" : "";
  out += "<#\n";
  out += "  dlldoctor fix script (dlldoctor " + escape_bytes(header.tool_version, Escape::Controls) + ")\n";
  out += "  For: " + escape_bytes(header.request, Escape::Controls) + "\n";
  out += "  Now: " + escape_bytes(header.verdict, Escape::Controls) + "\n";
  out += "  Plan: " +
         std::string(plan.verified ? "verified: after these steps dlldoctor predicts HEALTHY"
                                   : "not verified: after these steps dlldoctor still predicts " + plan.predicted) +
         "\n";
  out += "  Read it, then run:  powershell -ExecutionPolicy Bypass -File <this file> [-WhatIf]\n";
  out += "  Running it twice does no harm: every step checks what it finds first.\n#>\n";
  out += kHelpers;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const plan::Step& step = plan.steps[i];
    const rules::FixStep& c = step.change;
    const std::size_t n = i + 1;
    bool admin = c.value("scope") == "machine";
    for (const char* field : {"path", "from", "to"}) {
      for (const std::string& value : c.values(field)) admin = admin || protected_folder(value);
    }
    out += fmt::format("\n# step {}: {}\n", n, escape_bytes(plan::step_summary(step), Escape::Controls));
    for (const rules::FindingKey& mended : step.mends) out += comment("mends " + rules::finding_label(mended)) + "\n";
    out += fmt::format("if (Step-Allowed {} ${}) {{\n", n, admin ? "true" : "false");
    auto version_of = [&](const std::string& path) {
      auto it = step.versions.find(path);
      return powershell_literal(it == step.versions.end() ? std::string() : it->second);
    };
    if (c.kind == "rename") {
      for (const std::string& path : c.values("path"))
        out += fmt::format("  Rename-ToBak {} {} {}\n", n, powershell_literal(path), version_of(path));
    } else if (c.kind == "copy") {
      for (const std::string& from : c.values("from"))
        out += fmt::format("  Copy-WithBak {} {} {} {}\n", n, powershell_literal(from),
                           powershell_literal(c.value("to")), version_of(from));
    } else if (c.kind == "install") {
      std::vector<std::string> files;
      for (const std::string& name : c.values("names")) files.push_back(plan::file_in_folder(c.value("to"), name));
      const std::string what = c.value("what");
      if (!c.value("command").empty()) {
        // The rules' own install line (winget ...), which installs for the whole machine.
        out += "  if (@(" + literals(files) + " | Where-Object { -not (Test-Path -LiteralPath $_) }).Count -gt 0) {\n";
        out += "    if ($PSCmdlet.ShouldProcess(" + powershell_literal(what) + ", 'Install')) {\n      " +
               c.value("command") + "\n    }\n  }\n";
      } else {
        out += "  " + comment("get " + what + " into " + c.value("to")) + "\n";
      }
      out += fmt::format("  Confirm-Installed {} {} {}\n", n, powershell_literal(what), literals(files));
    } else if (c.kind == "path_add") {
      for (const std::string& entry : c.values("entry"))
        out += fmt::format("  Add-PathEntry {} {} ${} '{}'\n", n, powershell_literal(entry),
                           c.value("position") == "last" ? "false" : "true", plan::scope_name(c.value("scope")));
    } else if (c.kind == "path_remove") {
      out += fmt::format("  Remove-PathEntry {} {} '{}'\n", n, literals(c.values("entry")),
                         plan::scope_name(c.value("scope")));
    } else if (c.kind == "path_replace") {
      out += fmt::format("  Replace-PathEntry {} {} {} '{}'\n", n, powershell_literal(c.value("entry")),
                         powershell_literal(c.value("with")), plan::scope_name(c.value("scope")));
    } else if (c.kind == "unblock") {
      out += fmt::format("  Unblock-Files {} {}\n", n, literals(c.values("path")));
    } else if (c.kind == "new_terminal") {
      out += "  Write-Host 'step " + std::to_string(n) + ": open a new terminal when this script is done'\n";
    }
    out += "}\n";
  }
  if (!plan.by_hand.empty()) {
    out += "\n# By hand (dlldoctor cannot do or check these):\n";
    for (const plan::Step& step : plan.by_hand) out += comment(plan::step_summary(step)) + "\n";
    out += "$script:left += 'the steps marked \"by hand\" at the end of this script'\n";
  }
  out += kEnding;
  return out;
}

}  // namespace dlldoctor::report
