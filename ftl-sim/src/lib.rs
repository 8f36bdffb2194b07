//! ftl-sim: a FlashSim-style flash simulator with a DFTL demand-cached
//! page-mapping FTL, garbage collection, parallel units and remap, that
//! replays block traces. See README.md for the model and formats.

pub mod alloc;
pub mod config;
pub mod dop;
pub mod error;
pub mod flash;
pub mod flashsim_conf;
pub mod ftl;
pub mod gc;
pub mod geometry;
pub mod histogram;
pub mod lru;
pub mod mapcache;
pub mod mem;
pub mod replay;
pub mod request;
pub mod rng;
pub mod stats;
pub mod summary;
pub mod synth;
pub mod text;
pub mod timeline;
pub mod trace;

pub use config::FtlConfig;
pub use error::{Error, Result};
pub use ftl::Ftl;
pub use request::{Op, Request};
