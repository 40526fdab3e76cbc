// One shared-memory channel per peer, for a module whose processes talk
// with several peers (ABI 1.5 open_link / select_peer: shift rounds,
// matchings, collectives): the channel connect made, then one per further
// peer, and the selected one that calls use. Used by the `shm` and `sim`
// modules. Header-only.
//
//     ngx::shm::PeerChannels links;
//     NGX_TRY-like: links.open(boot, ring_bytes, err);   // connect or open_link
//     links.select(peer, err);                           // select_peer
//     links.selected()->out.write(...);
#ifndef NGX_SHM_PEER_CHANNELS_HPP
#define NGX_SHM_PEER_CHANNELS_HPP

#include "channel.hpp"

#include <memory>
#include <vector>

namespace ngx::shm {

class PeerChannels {
public:
    // A channel to boot->peer, which must not have one yet; it becomes the
    // selected one.
    ngx_status open(const ngx_bootstrap* boot, size_t ring_bytes, ngx_error* err)
    {
        if (find(boot->peer) != nullptr)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "open_link: the link to rank %d is open already", boot->peer);
        auto channel = std::make_unique<Channel>();
        if (ngx_status s = connect_channel(boot, ring_bytes, channel.get(), err); s != NGX_OK)
            return s;
        links_.push_back({boot->peer, std::move(channel)});
        return select(boot->peer, err);
    }

    // The channel to `peer` becomes the selected one.
    ngx_status select(int peer, ngx_error* err)
    {
        Channel* channel = find(peer);
        if (channel == nullptr)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "select_peer: no link to rank %d was opened", peer);
        selected_ = channel;
        return NGX_OK;
    }

    // The selected channel; nullptr before the first open (a connect that
    // only set up, with every link to come from open_link).
    Channel* selected() const { return selected_; }

private:
    Channel* find(int peer) const
    {
        for (const Link& link : links_)
            if (link.peer == peer)
                return link.channel.get();
        return nullptr;
    }

    struct Link {
        int peer = -1;
        std::unique_ptr<Channel> channel;
    };
    std::vector<Link> links_;
    Channel* selected_ = nullptr;
};

} // namespace ngx::shm

#endif
