// Writing a file the user named (-o, --csv, a ready file): every writer in
// ngx goes through write_atomically, so none can be redirected or leave
// debris behind.
//
// The text goes to a temporary file beside the target, of a random name
// created with O_EXCL (mkstemp), and is renamed over the target once
// complete: a reader never sees half a file, a symbolic link planted at a
// predictable name ("out.json.tmp") is never followed, and when anything
// fails (a full disk) the temporary file is removed and the error names the
// target. A target the user named as a symbolic link stands for the regular
// file it ends at (as a shell's `>`): that file is replaced the same way and
// the link stays; a link that cannot be followed or ends at a directory is
// refused; a device, FIFO
// or socket, reached directly or through a link (/dev/null, /dev/stdout on
// a pipe or terminal), is written in place, since a rename would replace
// the device with a regular file.
//
//     NGX_TRY(check_writable("out.json"));       // before measuring: fail early
//     NGX_TRY(write_atomically("out.json", text)); // when the results are known
#ifndef NGX_OUTPUT_FILE_HPP
#define NGX_OUTPUT_FILE_HPP

#include <ngx/status.hpp>

#include <string>

namespace ngx {

// Checks now that `path` can be written (its directory, or the existing
// file, and the link rule above), so a bad -o fails before measuring.
Status check_writable(const std::string& path);

// Writes `text` to `path` as described above; nothing is left on failure.
Status write_atomically(const std::string& path, const std::string& text);

} // namespace ngx

#endif
