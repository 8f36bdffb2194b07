-- Read-only queries of 30 s of offline map browsing on the tile cache of
-- mobifrag/workloads/tile_cache.py (TMC §5.2.3: the queries Google Earth issued on mirth_cache.db
-- were all read-only, most of them table scans). The tiles table has no index but its
-- key, so every query scans the table; each fetches the tiles of one 16 x 16 view at one
-- zoom level, as panning and zooming move it. Replayed with `sqlite3 -readonly DB < FILE`.
SELECT name, value FROM meta;
SELECT count(*), max(version) FROM tiles;
SELECT key, version, data FROM tiles WHERE level = 12 AND x BETWEEN 16 AND 31 AND y BETWEEN 16 AND 31;
SELECT key, version, data FROM tiles WHERE level = 12 AND x BETWEEN 20 AND 35 AND y BETWEEN 20 AND 35;
SELECT key, version, data FROM tiles WHERE level = 12 AND x BETWEEN 28 AND 43 AND y BETWEEN 16 AND 31;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 28 AND 43 AND y BETWEEN 16 AND 31;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 20 AND 35 AND y BETWEEN 8 AND 23;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 16 AND 31 AND y BETWEEN 12 AND 27;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 20 AND 35 AND y BETWEEN 8 AND 23;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 28 AND 43 AND y BETWEEN 12 AND 27;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 28 AND 43 AND y BETWEEN 12 AND 27;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 20 AND 35 AND y BETWEEN 20 AND 35;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 20 AND 35 AND y BETWEEN 20 AND 35;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 28 AND 43 AND y BETWEEN 16 AND 31;
SELECT kind, count(*) FROM tiles GROUP BY kind;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 24 AND 39 AND y BETWEEN 12 AND 27;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 28 AND 43 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 28 AND 43 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 36 AND 51 AND y BETWEEN 12 AND 27;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 36 AND 51 AND y BETWEEN 12 AND 27;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 28 AND 43 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 12 AND x BETWEEN 28 AND 43 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 12 AND x BETWEEN 20 AND 35 AND y BETWEEN 0 AND 15;
SELECT key, version, data FROM tiles WHERE level = 13 AND x BETWEEN 20 AND 35 AND y BETWEEN 0 AND 15;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 20 AND 35 AND y BETWEEN 0 AND 15;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 28 AND 43 AND y BETWEEN 8 AND 23;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 28 AND 43 AND y BETWEEN 8 AND 23;
SELECT kind, count(*) FROM tiles GROUP BY kind;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 32 AND 47 AND y BETWEEN 12 AND 27;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 24 AND 39 AND y BETWEEN 8 AND 23;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 20 AND 35 AND y BETWEEN 0 AND 15;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 16 AND 31 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 24 AND 39 AND y BETWEEN 8 AND 23;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 28 AND 43 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 32 AND 47 AND y BETWEEN 8 AND 23;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 24 AND 39 AND y BETWEEN 0 AND 15;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 16 AND 31 AND y BETWEEN 0 AND 15;
SELECT key, version, data FROM tiles WHERE level = 15 AND x BETWEEN 20 AND 35 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 20 AND 35 AND y BETWEEN 4 AND 19;
SELECT key, version, data FROM tiles WHERE level = 14 AND x BETWEEN 28 AND 43 AND y BETWEEN 0 AND 15;
SELECT kind, count(*) FROM tiles GROUP BY kind;
