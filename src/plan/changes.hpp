#pragma once
// What a plan's step does to the simulated machine (internal to src/plan): file changes go to an
// overlay of the file system, PATH changes to a copy of the environment, an installer's DLLs become
// stand-in images with the name, machine, version and exports the closure asks of them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/plan/planner.hpp"
#include "env/overlay_file_system.hpp"

namespace dlldoctor::plan {

// The host paths of a step's path fields (path, from, to, entry), each mapped through the sysroot when it
// is a Windows path; an error when one is a placeholder or cannot be mapped (the step cannot be tried).
Result<std::map<std::string, std::vector<std::string>>> host_fields(const rules::FixStep& step,
                                                                    const env::Environment& environment,
                                                                    env::FileSystem& files);

// `a` and `b` as one step when they are one change to one place, told apart only by the files they take
// (an install's names into one folder from one download, a copy's files into one folder, renames or
// unblocks of files in one folder): the union, mending what both mend. None otherwise.
std::optional<Step> merged_step(const Step& a, const Step& b);

// Carries out `step` on the overlay and the environment. `before`: the closures the plan starts from (the
// first one's process says the stand-ins' machine), whose importers say which exports a stand-in must have.
void apply_step(const Step& step, const std::vector<const graph::Closure*>& before, env::Environment& environment,
                env::OverlayFileSystem& files, pe::ImageCache& images);

}  // namespace dlldoctor::plan
