// Little-endian encoding of WireInfo (see wire.hpp).
#include "wire.hpp"

namespace ngx::ibv {

namespace {

class Writer {
public:
    explicit Writer(uint8_t* out) : out_(out) {}
    template <typename T>
    void put(T value)
    {
        for (size_t i = 0; i < sizeof(T); ++i)
            *out_++ = uint8_t(uint64_t(value) >> (8 * i));
    }
    void bytes(const uint8_t* data, size_t n)
    {
        for (size_t i = 0; i < n; ++i)
            *out_++ = data[i];
    }

private:
    uint8_t* out_;
};

class Reader {
public:
    explicit Reader(const uint8_t* in) : in_(in) {}
    template <typename T>
    T get()
    {
        uint64_t value = 0;
        for (size_t i = 0; i < sizeof(T); ++i)
            value |= uint64_t(*in_++) << (8 * i);
        return T(value);
    }
    void bytes(uint8_t* data, size_t n)
    {
        for (size_t i = 0; i < n; ++i)
            data[i] = *in_++;
    }

private:
    const uint8_t* in_;
};

} // namespace

std::array<uint8_t, WireInfo::encoded_size> encode(const WireInfo& info)
{
    std::array<uint8_t, WireInfo::encoded_size> out{};
    Writer w(out.data());
    w.put(WireInfo::wire_magic);
    w.put(WireInfo::wire_version);
    w.put(info.mode);
    w.put(info.ethernet);
    w.put(info.qpn);
    w.put(info.psn);
    w.put(info.lid);
    w.bytes(info.gid.data(), info.gid.size());
    w.put(info.mtu);
    w.put(info.pool_addr);
    w.put(info.pool_rkey);
    w.put(info.slot_size);
    w.put(info.slots);
    return out;
}

std::optional<WireInfo> decode(const uint8_t* data, size_t size)
{
    if (size != WireInfo::encoded_size)
        return std::nullopt;
    Reader r(data);
    if (r.get<uint32_t>() != WireInfo::wire_magic || r.get<uint16_t>() != WireInfo::wire_version)
        return std::nullopt;
    WireInfo info;
    info.mode = r.get<uint8_t>();
    info.ethernet = r.get<uint8_t>();
    info.qpn = r.get<uint32_t>();
    info.psn = r.get<uint32_t>();
    info.lid = r.get<uint16_t>();
    r.bytes(info.gid.data(), info.gid.size());
    info.mtu = r.get<uint32_t>();
    info.pool_addr = r.get<uint64_t>();
    info.pool_rkey = r.get<uint32_t>();
    info.slot_size = r.get<uint64_t>();
    info.slots = r.get<uint32_t>();
    return info;
}

} // namespace ngx::ibv
