// A strided array as Cameron et al. 2007 sends it: s bytes of data, elements of one
// type (double, int or char) placed every d elements, so the array spans
// ((s/e - 1) d + 1) e bytes for e-byte elements. The copies a user (or the
// middleware) makes of it: gather into a contiguous buffer (pack), scatter
// back (unpack) and the plain copy of the layout (Cameron et al. 2007's T_mem).
//
//     Layout layout{.element = 8, .stride = 16};
//     size_t span = layout.span(4096);            // bytes the strided array covers
//     pack(layout, strided, packed, 4096);        // strided -> contiguous
//
// The patterns that send such arrays (strided, bcast) share their two
// options, --<prefix>-type and --<prefix>-strides (layout_options,
// read_layout_choice).
#ifndef NGX_MEASURE_STRIDED_LAYOUT_HPP
#define NGX_MEASURE_STRIDED_LAYOUT_HPP

#include <ngx/options.hpp>
#include <ngx/status.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ngx::patterns {

struct Layout {
    size_t element = 8; // bytes per element
    size_t stride = 1;  // elements from one element to the next

    size_t elements(size_t bytes) const { return bytes / element; }
    // Bytes the array of `bytes` data bytes spans.
    size_t span(size_t bytes) const { return bytes == 0 ? 0 : (elements(bytes) - 1) * stride * element + element; }
    size_t stride_bytes() const { return stride * element; }
};

// "double" -> 8, "int" -> 4, "char" -> 1; a usage error naming --`option` for other names.
Result<size_t> element_size(const std::string& type, const std::string& option = "strided-type");

// The strides of --strides ("1,2,16,1Ki"): whole numbers >= 1, any order;
// returned sorted and without repeats.
Result<std::vector<uint64_t>> parse_strides(const std::string& text, const char* option);

// The element type and the strides a pattern sends, from its options.
struct LayoutChoice {
    std::string type = "double";
    size_t element = 8;
    std::vector<uint64_t> strides; // sorted, without repeats
};

// The two options of a layout, declared by the pattern that uses them:
// --<prefix>-type (type_row: default double, as in Cameron et al. 2007) and
// --<prefix>-strides (its own default and help).
struct LayoutRows {
    opt::Option<std::string> type;
    opt::Option<std::string> strides;
};

constexpr opt::Option<std::string> type_row(std::string_view name)
{
    return opt::row::text(name, "double", "element type: double, int or char");
}

// Reads the two rows; a bad value is a usage error naming its option.
Result<LayoutChoice> read_layout_choice(opt::Reader& read, const LayoutRows& rows);

// A usage error unless every size is a whole number of elements and the
// largest array of the largest stride spans at most `limit` bytes.
Status check_grid(const std::vector<uint64_t>& sizes, const std::vector<uint64_t>& strides, size_t element,
                  uint64_t limit);

// Element-wise copies of `bytes` data bytes (defined out of line, so the
// timed loops cannot fold them away).
void pack(const Layout& layout, const uint8_t* strided, uint8_t* packed, size_t bytes);
void unpack(const Layout& layout, const uint8_t* packed, uint8_t* strided, size_t bytes);
void copy_layout(const Layout& layout, const uint8_t* from, uint8_t* to, size_t bytes);

} // namespace ngx::patterns

#endif
