// Segment pipelining down a tree of relative ranks, shared by pipeline-chain and
// pipeline-binary-tree: the message is cut into segments, and a rank at depth d receives
// segment s from its parent in round d - 1 + s while it sends segment s - 1 to its children
// (in round d + s it forwards segment s). Each direction is one repeated Transfer per
// neighbour, so a rank's schedule is O(children), not O(segments).
#pragma once

#include <cstdint>
#include <vector>

#include <leancast/schedule.hpp>

#include "schedule_builder.hpp"

namespace leancast::detail {

// Where relative rank q sits in the tree.
struct TreePlace {
  int parent = -1;  // relative rank; -1 for the root
  std::uint32_t depth = 0;
  std::vector<int> children;  // relative ranks
};

// Number of segments of at most `segment_bytes` bytes (the layout then evens them out),
// capped at kMaxSegments: beyond that the segments grow, so that a rank's expanded
// program (one operation per segment) stays bounded.
inline constexpr std::uint64_t kMaxSegments = std::uint64_t{1} << 20;
std::uint64_t segment_count(std::uint64_t bytes, std::uint64_t segment_bytes);

// Where relative rank q sits in the binary tree laid out in preorder over the relative ranks
// [first, first + size): the range's first rank is its root, then its left (larger) half,
// then its right half. `top` is the root's parent (-1: none, the tree's root has depth 0).
TreePlace preorder_binary_place(int q, int first, int size, int top);

// Where relative rank q sits in cma's tree (cma.cpp): fan-out 8 in breadth-first order.
TreePlace cma_tree_place(int q, int procs);

RankSchedule pipelined_tree(const BcastShape& shape, int rank, std::uint64_t segment_bytes,
                            const TreePlace& place);

// Adds the rank's part of one tree's pipeline that carries segments [first, first + count)
// (blocks of `out`'s layout) to `out`, in phase 0. Several trees may share one schedule
// (two-tree): each tree's transfers are listed together, in the same tree order on every
// rank, so that two of them between one pair in one round match in that order.
void add_tree_pipeline(ScheduleBuilder& out, const TreePlace& place, std::uint64_t first,
                       std::uint64_t count);

}  // namespace leancast::detail
