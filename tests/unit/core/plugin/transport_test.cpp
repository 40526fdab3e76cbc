// Transport's buffers: under --buffer-offset every buffer from alloc() starts
// that many bytes past a page boundary, and release() hands the module back
// the pointer its alloc gave (a module that freed the shifted one would
// crash under ASan); without it, the module's own pointer is returned.
#include <ngx/transport.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

namespace ngx {
namespace {

std::unique_ptr<Transport> open_tcp(std::optional<size_t> buffer_offset)
{
    const char* path = std::getenv("NGX_TEST_GOOD_MODULE");
    EXPECT_NE(path, nullptr);
    Result<LoadedModulePtr> module = load_module_file(path != nullptr ? path : "");
    EXPECT_TRUE(module.has_value()) << module.status().message();
    TransportSettings settings;
    settings.buffer_offset = buffer_offset;
    Result<std::unique_ptr<Transport>> transport = Transport::open(*module, {}, settings);
    EXPECT_TRUE(transport.has_value()) << transport.status().message();
    return transport.has_value() ? std::move(*transport) : nullptr;
}

TEST(Transport, ShiftToPageOffset)
{
    EXPECT_EQ(shift_to_page_offset(0x10000, 0, 4096), 0u);
    EXPECT_EQ(shift_to_page_offset(0x10000, 16, 4096), 16u);
    EXPECT_EQ(shift_to_page_offset(0x10040, 16, 4096), 4096u - 48u);
    EXPECT_EQ(shift_to_page_offset(0x10040, 64, 4096), 0u);
    EXPECT_EQ(shift_to_page_offset(0x10fff, 4095, 4096), 0u);
}

TEST(Transport, BuffersStartAtTheAskedPageOffset)
{
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    std::unique_ptr<Transport> transport = open_tcp(size_t(100));
    ASSERT_NE(transport, nullptr);
    for (size_t size : {size_t(1), size_t(4096), size_t(1) << 20}) {
        Result<Buffer> buffer = transport->alloc(size);
        ASSERT_TRUE(buffer.has_value()) << buffer.status().message();
        EXPECT_EQ(uintptr_t(buffer->data()) % page, 100u) << size << " bytes";
        EXPECT_EQ(buffer->size(), size);
        buffer->data()[size - 1] = 1; // the whole size is the buffer's
    }
}

TEST(Transport, WithoutAnOffsetTheModulePlacesTheBuffer)
{
    std::unique_ptr<Transport> transport = open_tcp(std::nullopt);
    ASSERT_NE(transport, nullptr);
    Result<Buffer> buffer = transport->alloc(1 << 20);
    ASSERT_TRUE(buffer.has_value());
    EXPECT_EQ(uintptr_t(buffer->data()) % 64, 0u); // the tcp module's alignment
}

} // namespace
} // namespace ngx
