// Flush-denormal mode (torch.set_flush_denormal): FTZ and DAZ in the x86 MXCSR, set on the calling thread
// and carried to every pool worker before its next job (the mode is a process setting in ember).
#pragma once

namespace ember {

// Sets (or clears) FTZ/DAZ on this thread and marks the pool's threads to follow at their next job.
// Returns false (and changes nothing) where the CPU has no such control (not x86).
bool set_flush_denormal(bool on);

// Brings the calling thread's MXCSR to the process's mode if it changed since this thread last looked
// (one relaxed atomic load when it has not). Pool workers call it before each job.
void sync_flush_denormal();

}  // namespace ember
