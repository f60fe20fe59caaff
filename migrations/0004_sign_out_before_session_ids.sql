-- Custom migration: sessions get a public id (next migration, NOT NULL). Existing sessions have none,
-- so they end here: everyone signs in once after the upgrade.
DELETE FROM `sessions`;
