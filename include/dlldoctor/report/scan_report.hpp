#pragma once
// The report of `dlldoctor --scan`: copies grouped by DLL name, with what is wrong about them.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/report/image_report.hpp"
#include "dlldoctor/report/writers.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/scan/scanner.hpp"
#include "dlldoctor/session/scan.hpp"

namespace dlldoctor::report {

inline constexpr const char* kScanSchema = "dlldoctor.scan/1";

using session::ScanSearch;

struct ScanInput {
  std::string tool_version;
  std::string generated_at;
  const scan::ScanOptions* options = nullptr;
  const scan::ScanResult* result = nullptr;
  const rules::RuleData* rules = nullptr;
  const ScanSearch* search = nullptr;  // may be null
  // What the rule engine concludes about the folders (rules::run_folder_rules) and about a new process that
  // loads what they hold; may be null.
  const std::vector<rules::Finding>* findings = nullptr;
  const std::vector<std::vector<std::string>>* found_in = nullptr;  // parallel: the processes (session::ScanRun)
  // Host path -> Windows path, when a sysroot maps them.
  std::function<std::optional<std::string>(const std::string&)> windows_path;
};

// What every format of the scan report shows: the copies grouped by DLL name, the identical ones, the
// versions of each family, the folders that mix releases, the backups. Decided once per scan.
struct ScanSummary;

class ScanView {
 public:
  ScanView(const session::ScanRun& run, const Stamp& stamp);
  ScanView(const ScanView&) = delete;
  ScanView& operator=(const ScanView&) = delete;
  ~ScanView();
  const ScanInput& input() const { return input_; }
  const ScanSummary& summary() const { return *summary_; }
  // Findings of error severity (folders whose copies of one family are of two releases, what a new process
  // meets): the exit status.
  std::size_t errors() const;
  // The findings that are not about a folder's mix (those the report lists with the folders), with fixes.
  const FindingsShown& other_findings() const { return others_; }

 private:
  ScanInput input_;
  std::unique_ptr<const ScanSummary> summary_;
  FindingsShown others_;
};

// The scan report's formats: text, json (dlldoctor.scan/1, streamed a DLL name at a time), markdown,
// html.
const Writers<ScanView>& scan_writers();

}  // namespace dlldoctor::report
