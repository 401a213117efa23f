import { describe, expect, it } from 'vitest';
import { cpeKey, osvPackageKey, purlKey, purlVersion } from './identity.fns.js';

describe('package identity', () => {
  it('is a purl\'s type, namespace and name: version, qualifiers and subpath ignored', () => {
    expect(purlKey('pkg:npm/%40fastify/static@9.3.0')).toBe('npm/@fastify/static');
    expect(purlKey('pkg:npm/@fastify/static@9.3.0?foo=bar#lib')).toBe('npm/@fastify/static');
    expect(purlKey('pkg:npm/undici-types@6.21.0')).not.toBe(purlKey('pkg:npm/undici@6.21.0'));
    expect(purlKey('pkg:npm/fastify@5.12.8')).not.toBe(purlKey('pkg:npm/%40fastify/static@9.3.0'));
    expect(purlKey('pkg:pypi/Django_Rest.Framework@3.15.0')).toBe('pypi/django-rest-framework');
    expect(purlKey('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar')).toBe('maven/org.apache.logging.log4j/log4j-core');
    expect(purlKey('pkg:golang/github.com/gin-gonic/gin@v1.9.1')).toBe('golang/github.com/gin-gonic/gin');
    expect(purlKey('pkg:deb/debian/openssh-server@1:9.2p1-2+deb12u3?arch=amd64')).toBe('deb/debian/openssh-server');
    expect(purlKey('not a purl')).toBeNull();
    expect(purlVersion('pkg:deb/debian/openssh-server@1%3A9.2p1-2?arch=amd64')).toBe('1:9.2p1-2');
  });

  it('maps OSV (ecosystem, name) to the same key', () => {
    expect(osvPackageKey('npm', '@fastify/static')).toBe(purlKey('pkg:npm/%40fastify/static@1'));
    expect(osvPackageKey('PyPI', 'Django_Rest.Framework')).toBe('pypi/django-rest-framework');
    expect(osvPackageKey('Maven', 'org.apache.logging.log4j:log4j-core')).toBe('maven/org.apache.logging.log4j/log4j-core');
    expect(osvPackageKey('Go', 'github.com/gin-gonic/gin')).toBe(purlKey('pkg:golang/github.com/gin-gonic/gin@v1.9.1'));
    expect(osvPackageKey('Debian:12', 'openssh-server')).toBe('deb/debian/openssh-server');
    expect(osvPackageKey('Unknown', 'x')).toBeNull();
  });

  it('is a CPE\'s vendor and product', () => {
    expect(cpeKey('cpe:2.3:a:openbsd:openssh:9.3:p1:*:*:*:*:*:*')).toBe('openbsd:openssh');
    expect(cpeKey('cpe:/a:apache:log4j:2.14.1')).toBe('apache:log4j');
    expect(cpeKey('cpe:2.3:a:*:*:*:*:*:*:*:*:*:*')).toBeNull();
  });
});
