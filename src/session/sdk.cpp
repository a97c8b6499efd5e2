#include "dlldoctor/session/sdk.hpp"

namespace dlldoctor::session {

Result<rules::SdkReport> check_sdk(Machine& machine, const SdkRequest& request) {
  rules::SdkCheckOptions check;
  check.target_machine = request.target_machine;
  std::string root = request.root;
  if (machine.has_environment()) {
    const env::Environment* environment = &machine.environment();
    const env::FolderRef folder = env::resolve_folder(*environment, request.root, machine.files());
    if (folder.host.empty()) return Error{request.root + ": not under --sysroot or a --map folder"};
    if (!folder.exists) return Error{request.root + ": no such folder (" + folder.host + ")"};
    root = folder.host;
    check.windows_path = [environment](const std::string& path) { return env::windows_path_of(*environment, path); };
  }
  return rules::check_cudnn_sdk(root, machine.files(), machine.rules(), check);
}

}  // namespace dlldoctor::session
