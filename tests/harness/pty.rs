//! A pseudo-terminal for tests that run the plugin as on a person's
//! terminal: the plugin's stdout is the slave side, the test reads the
//! master side (Linux answers EIO there once every slave copy is closed).

use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};

pub struct Pty {
    pub master: File,
    pub slave: OwnedFd,
}

/// Opens a pseudo-terminal of 50 rows and 200 columns.
pub fn open() -> Pty {
    let mut master: libc::c_int = -1;
    let mut slave: libc::c_int = -1;
    let size = libc::winsize {
        ws_row: 50,
        ws_col: 200,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors it opened into our variables;
    // the name and termios arguments may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are open and owned by nothing else.
    unsafe {
        Pty {
            master: File::from_raw_fd(master),
            slave: OwnedFd::from_raw_fd(slave),
        }
    }
}
