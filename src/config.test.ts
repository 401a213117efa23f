import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('config', () => {
  it('has sane defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', databaseUrl: undefined, allowPrivateNetworks: false, baseUrl: 'http://127.0.0.1:8080' });
    expect(c.dataDir).toMatch(/\.rampart$/);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('treats empty strings as unset and parses flags', () => {
    const c = loadConfig({ PORT: '', RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_BASE_URL: 'https://rampart.example.com/' });
    expect(c.port).toBe(8080);
    expect(c.allowPrivateNetworks).toBe(true);
    expect(c.baseUrl).toBe('https://rampart.example.com');
    expect(c.baseUrlConfigured).toBe(true);
    expect(loadConfig({}).baseUrlConfigured).toBe(false);
  });

  it('reads the dead-worker delay in seconds (60 by default, 3 to 3600)', () => {
    expect(loadConfig({}).deadWorkerAfterMs).toBe(60_000);
    expect(loadConfig({ RAMPART_DEAD_WORKER_AFTER_SECONDS: '15' }).deadWorkerAfterMs).toBe(15_000);
    expect(() => loadConfig({ RAMPART_DEAD_WORKER_AFTER_SECONDS: '1' })).toThrow(/RAMPART_DEAD_WORKER_AFTER_SECONDS/);
  });

  it('names every invalid variable', () => {
    try {
      loadConfig({ PORT: 'x', DATABASE_URL: 'mysql://db', RAMPART_SECRET_KEY: 'short' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as Error).message;
      expect(msg).toContain('PORT');
      expect(msg).toContain('DATABASE_URL');
      expect(msg).toContain('RAMPART_SECRET_KEY');
    }
  });
});
