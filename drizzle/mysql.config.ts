import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'mysql',
  schema: './packages/db/src/schema/mysql.ts',
  out: './drizzle/mysql',
});
