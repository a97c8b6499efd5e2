#pragma once
// The report of `dlldoctor sdk`: is an unpacked cuDNN usable to build with, and with which settings.
#include "dlldoctor/report/writers.hpp"
#include "dlldoctor/rules/sdk_check.hpp"

namespace dlldoctor::report {

// sdk's formats: text, json (dlldoctor.sdk/1).
const Writers<rules::SdkReport>& sdk_writers();

}  // namespace dlldoctor::report
