//! Reports and plans to text. Not built yet.
