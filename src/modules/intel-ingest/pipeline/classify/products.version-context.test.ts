import { describe, expect, it } from 'vitest';
import { affectedProductsFrom } from './products.fns.js';

const products = (text: string) => affectedProductsFrom({ text, cpes: [] }).map((p) => [p.product, p.versions]);

describe('fixed and negated versions are not affected versions', () => {
  it('"upgrade to", "fixed in" and "which fixes" name fixes', () => {
    expect(products('Apache Struts 2.0.0 through 6.3.0 allows path traversal. Users should upgrade to Struts 6.4.0, which fixes the issue.')).toEqual([['struts', ['>=2.0.0 <=6.3.0']]]);
    expect(products('Apache Tomcat 10.1.0 to 10.1.33 is affected. The issue is fixed in Apache Tomcat 10.1.34.')).toEqual([['tomcat', ['>=10.1.0 <=10.1.33']]]);
  });
  it('a negated sentence names no affected version', () => {
    expect(products('Apache Log4j 2.0-beta9 through 2.14.1 is vulnerable. Log4j 2.17.1 and later are not affected.')).toEqual([['log4j', ['>=2.0-beta9 <=2.14.1']]]);
  });
  it('"sshd before 9.8p1" is OpenSSH', () => {
    expect(products('A signal handler race condition in sshd before 9.8p1 allows remote code execution.')).toEqual([['openssh', ['<9.8p1']]]);
  });
});
