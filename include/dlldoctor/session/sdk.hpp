#pragma once
// `dlldoctor sdk DIR`: is an unpacked cuDNN usable to build a program, and with which settings (seed 5.3).
#include <cstdint>
#include <string>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/rules/sdk_check.hpp"
#include "dlldoctor/session/machine.hpp"

namespace dlldoctor::session {

struct SdkRequest {
  std::string root;  // a host folder, or a Windows path when the machine maps one (--sysroot, --map)
  std::uint16_t target_machine = pe::machine::kAmd64;
};

Result<rules::SdkReport> check_sdk(Machine& machine, const SdkRequest& request);

}  // namespace dlldoctor::session
