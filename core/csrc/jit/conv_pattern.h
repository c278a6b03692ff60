// What the convolution passes share (freeze.cpp's conv/batch-norm folding, fuse_conv.cpp's fusion): which
// nodes are convolutions, and which readers of a value look at its elements rather than its shape.
#pragma once
#include <cstddef>
#include <unordered_map>

#include "jit/ir.h"

namespace ember::jit {

// A convolution that is not transposed: aten::convolution with transposed a constant false, or aten::_conv_nd
// (what scripted F.conv1d/2d/3d call).
bool is_forward_conv(const Node* n);
// The index of a convolution node's `groups` input (its first six inputs are the same for both kinds).
inline size_t conv_groups_index(const Node* n) { return n->kind == "aten::convolution" ? 8 : 6; }
// Whether n reads only its inputs' shape or dtype (dim, sizes, numel...): a fold or fusion that keeps a
// tensor's shape and dtype may point such a reader at the new value.
bool reads_metadata_only(const Node& n);
// Per value, the nodes and block returns that read it; metadata-only readers are counted only with `all`.
void count_reads(const Block& b, std::unordered_map<const Value*, int>& reads, bool all);
// The same for one node and its blocks.
void count_node_reads(const Node& n, std::unordered_map<const Value*, int>& reads, bool all);
// Whether n (or a node in its blocks) may write a tensor in place: an in-place op, or a call the graph cannot
// see into (an ignored Python function, a C++ class method, a forked call).
bool may_write_tensors(const Node& n);

}  // namespace ember::jit
