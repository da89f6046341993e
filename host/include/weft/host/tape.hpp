// weft::Tape: reverse-mode automatic differentiation over kernel launches
// (Warp's wp.Tape). While a tape records on a thread, every Kernel::launch
// made on that thread is remembered (kernel, grid, arguments, stream);
// backward() seeds the loss gradient and runs the recorded kernels' backward
// passes in reverse order, accumulating into the arrays' gradients
// (Array::with_grad / requires_grad).
#pragma once

#include "weft/modules/compiled_module.hpp"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace weft {

class Tape {
public:
    Tape();
    ~Tape();
    Tape(const Tape &) = delete;
    Tape &operator=(const Tape &) = delete;

    /// While alive, this thread's launches are recorded on `tape` (Warp's
    /// `with tape:`). Scopes nest; the innermost records.
    class Scope {
    public:
        explicit Scope(Tape &tape);
        ~Scope();
        Scope(const Scope &) = delete;
        Scope &operator=(const Scope &) = delete;

    private:
        LaunchObserver previous_;
    };
    /// Scope(*this).
    [[nodiscard]] Scope record() { return Scope(*this); }

    /// Adds 1 to every element of loss's gradient, then runs the backward pass
    /// of each recorded launch, last first. UserError when loss has no
    /// gradient, or a recorded kernel has no backward pass (naming it).
    void backward(const Array &loss);
    /// The same with explicit seeds: each pair's second array is added to the
    /// first's gradient (same dtype and shape) before the backward passes run.
    void backward(const std::vector<std::pair<Array, Array>> &seeds);
    /// Zeroes the gradient of every array argument of the recorded launches.
    void zero();
    /// Forgets the recorded launches (gradients are left as they are).
    void reset();
    /// The number of recorded launches.
    std::size_t size() const;

    struct Launch {
        Kernel kernel;
        std::vector<std::int64_t> dim;
        std::vector<KernelArg> args;
        LaunchOptions options;
    };
    /// The recorded launches, in launch order.
    const std::vector<Launch> &launches() const;

private:
    friend struct TapeRecorder;
    std::vector<Launch> launches_;
    std::vector<Kernel> backward_passes() const; // built before any gradient is seeded
    void run_backward(const std::vector<Kernel> &backward);
};

} // namespace weft
