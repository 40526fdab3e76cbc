// Strided arrays: parsing and the element copies (see layout.hpp).
#include <ngx/measure/strided_layout.hpp>

#include <ngx/options.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cstring>

namespace ngx::patterns {

Result<size_t> element_size(const std::string& type, const std::string& option)
{
    if (type == "double")
        return sizeof(double);
    if (type == "int")
        return sizeof(int32_t);
    if (type == "char")
        return size_t(1);
    return Status::usage(opt::bad_value(option, type, "expected double, int or char"));
}

Result<std::vector<uint64_t>> parse_strides(const std::string& text, const char* option)
{
    std::vector<uint64_t> strides;
    for (const std::string& item : opt::split_list(text)) {
        opt::Parsed<uint64_t> stride = opt::byte_count(option, item, 1, uint64_t(1) << 24);
        if (!stride)
            return Status::usage(stride.error + " (a stride counts elements; 1 is contiguous)");
        strides.push_back(*stride);
    }
    std::sort(strides.begin(), strides.end());
    strides.erase(std::unique(strides.begin(), strides.end()), strides.end());
    return strides;
}

Result<LayoutChoice> read_layout_choice(opt::Reader& read, const LayoutRows& rows)
{
    LayoutChoice choice;
    choice.type = read(rows.type);
    const std::string strides_text = read(rows.strides);
    if (!read.ok())
        return Status::usage(read.error());
    NGX_ASSIGN_OR_RETURN(size_t element, element_size(choice.type, std::string(rows.type.long_name())));
    choice.element = element;
    const std::string strides_option(rows.strides.long_name());
    Result<std::vector<uint64_t>> strides = parse_strides(strides_text, strides_option.c_str());
    if (!strides)
        return strides.status();
    choice.strides = std::move(*strides);
    return choice;
}

Status check_grid(const std::vector<uint64_t>& sizes, const std::vector<uint64_t>& strides, size_t element,
                  uint64_t limit)
{
    for (uint64_t size : sizes)
        if (size == 0 || size % element != 0)
            return Status::usage("size " + format_bytes(size) + " is not a whole number of " + std::to_string(element) +
                                 "-byte elements (give -s in multiples of the element)");
    const Layout widest{element, strides.back()};
    const double span = double(widest.elements(sizes.back()) - 1) * double(widest.stride_bytes()) + double(element);
    if (span > double(limit))
        return Status::usage("stride " + std::to_string(strides.back()) + " at size " + format_bytes(sizes.back()) +
                             " spans " + format_bytes(uint64_t(std::min(span, 1e18))) + ", over the buffer limit of " +
                             format_bytes(limit) + " (use smaller --strides or -s)");
    return Status::ok();
}

namespace {

// One loop per element size, so the copies are plain loads and stores.
template <typename Element>
void gather(const uint8_t* from, size_t from_step, uint8_t* to, size_t to_step, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        Element value;
        std::memcpy(&value, from + i * from_step, sizeof value);
        std::memcpy(to + i * to_step, &value, sizeof value);
    }
}

void copy_elements(size_t element, const uint8_t* from, size_t from_step, uint8_t* to, size_t to_step, size_t count)
{
    if (from_step == element && to_step == element) {
        std::memcpy(to, from, count * element);
        return;
    }
    switch (element) {
    case 8:
        gather<uint64_t>(from, from_step, to, to_step, count);
        break;
    case 4:
        gather<uint32_t>(from, from_step, to, to_step, count);
        break;
    default:
        gather<uint8_t>(from, from_step, to, to_step, count);
        break;
    }
}

} // namespace

void pack(const Layout& layout, const uint8_t* strided, uint8_t* packed, size_t bytes)
{
    copy_elements(layout.element, strided, layout.stride_bytes(), packed, layout.element, layout.elements(bytes));
}

void unpack(const Layout& layout, const uint8_t* packed, uint8_t* strided, size_t bytes)
{
    copy_elements(layout.element, packed, layout.element, strided, layout.stride_bytes(), layout.elements(bytes));
}

void copy_layout(const Layout& layout, const uint8_t* from, uint8_t* to, size_t bytes)
{
    copy_elements(layout.element, from, layout.stride_bytes(), to, layout.stride_bytes(), layout.elements(bytes));
}

} // namespace ngx::patterns
