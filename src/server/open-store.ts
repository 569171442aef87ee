import { UserStore } from '../services/user-store';
import { DatabaseConfig } from './config';

export interface OpenStoreOptions {
  /** Told about connections a database restart ended while idle (PostgreSQL); harmless, worth a log line. */
  onConnectionError?: (error: Error) => void;
}

/**
 * Opens (and migrates) the store the configuration names; fails if the database cannot be reached or migrated. Only
 * that store's driver is loaded (better-sqlite3 or pg), and only now.
 */
export async function openStore(database: DatabaseConfig, options: OpenStoreOptions = {}): Promise<UserStore> {
  switch (database.kind) {
    case 'sqlite': {
      const { SqliteUserStore } = await import('../stores/sqlite-user-store');
      return SqliteUserStore.open({ filename: database.filename });
    }
    case 'postgres': {
      const { PostgresUserStore } = await import('../stores/postgres-user-store');
      return PostgresUserStore.open({
        connectionString: database.connectionString,
        preparedStatements: database.preparedStatements,
        onConnectionError: options.onConnectionError,
      });
    }
  }
}
