// Splitting a module's kernels into translation units compiled side by side.
#include "weft/codegen/cpp_emitter.hpp"

#include <algorithm>
#include <numeric>

namespace weft::codegen {

std::vector<int> assign_parts(const std::vector<std::size_t> &kernel_bytes) {
    const std::size_t total = std::accumulate(kernel_bytes.begin(), kernel_bytes.end(), std::size_t(0));
    const std::size_t parts =
        std::min({static_cast<std::size_t>(max_parts), kernel_bytes.size(), total / min_part_bytes});
    std::vector<int> part(kernel_bytes.size(), 0);
    if (parts <= 1) return part;
    // Largest first onto the lightest part (ties: the lower index), which
    // keeps the longest part, the one a cold compile waits for, short. A
    // kernel weighs its text and kernel_fixed_bytes for what every kernel
    // compiles whatever its size.
    std::vector<std::size_t> weight(kernel_bytes.size());
    for (std::size_t k = 0; k < kernel_bytes.size(); ++k) weight[k] = kernel_bytes[k] + kernel_fixed_bytes;
    std::vector<std::size_t> order(kernel_bytes.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
    std::vector<std::size_t> load(parts, 0);
    for (std::size_t k : order) {
        const std::size_t lightest =
            static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        load[lightest] += weight[k];
        part[k] = static_cast<int>(lightest) + 1;
    }
    return part;
}

} // namespace weft::codegen
