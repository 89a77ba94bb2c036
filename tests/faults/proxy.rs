//! A TCP proxy on 127.0.0.1 in front of the test API server, for slow and
//! silent servers. TLS passes through it untouched (the serving certificate
//! names 127.0.0.1, so the proxy's address verifies the same), so it sees
//! bytes, not requests; its modes are chosen so that each is deterministic
//! anyway.
//!
//! Threads, not tasks: a test blocks on the plugin process while the proxy
//! must keep working, and each `#[tokio::test]` has its own runtime.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// What the proxy does to the server's answers.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// Every chunk the server sends reaches the client this much later.
    Delay(Duration),
    /// The TLS handshake passes; every answer after it is held forever.
    /// (The client's first bytes after the server has spoken are its second
    /// handshake flight, which carries or precedes its first request.) When
    /// the server closes, so does the client's side, with nothing of the
    /// answer delivered: a server that went away before it answered.
    StallAfterHandshake,
    /// Connections are accepted and nothing is ever answered.
    Silent,
}

pub struct Proxy {
    pub port: u16,
    /// The connections a silent proxy accepted (kept open, never answered).
    held: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// Listens on a free loopback port and forwards to `upstream` in `mode`.
    /// The proxy lives as long as the test process.
    pub fn start(upstream: SocketAddr, mode: Mode) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let held: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let keep = held.clone();
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                match mode {
                    Mode::Silent => keep.lock().unwrap().push(client),
                    _ => {
                        thread::spawn(move || connection(client, upstream, mode));
                    }
                }
            }
        });
        Proxy { port, held }
    }

    /// `https://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// How many connections a silent proxy is holding.
    pub fn held(&self) -> usize {
        self.held.lock().unwrap().len()
    }
}

fn connection(client: TcpStream, upstream: SocketAddr, mode: Mode) {
    let Ok(server) = TcpStream::connect(upstream) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let server_spoke = Arc::new(AtomicBool::new(false));
    let stalled = Arc::new(AtomicBool::new(false));
    let (mut c_read, mut s_write) = (
        client.try_clone().expect("clone"),
        server.try_clone().expect("clone"),
    );
    let (spoke, stall) = (server_spoke.clone(), stalled.clone());
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match c_read.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if spoke.load(Ordering::SeqCst) {
                stall.store(true, Ordering::SeqCst);
            }
            if s_write.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = s_write.shutdown(Shutdown::Write);
    });
    let (mut s_read, mut c_write) = (server, client);
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match s_read.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        match mode {
            Mode::Delay(d) => thread::sleep(d),
            Mode::StallAfterHandshake if stalled.load(Ordering::SeqCst) => continue,
            _ => {}
        }
        server_spoke.store(true, Ordering::SeqCst);
        if c_write.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    // The server closed: so does the client's side, with whatever was held
    // never delivered.
    let _ = c_write.shutdown(Shutdown::Both);
}
