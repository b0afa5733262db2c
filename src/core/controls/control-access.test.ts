import { describe, expect, it } from 'vitest';
import {
  hostnameOfHostHeader,
  hostnameOfOrigin,
  hostRefusal,
  isLoopbackAddress,
  isLoopbackHostname,
  originRefusal,
} from './control-access.js';

describe('control access rules', () => {
  it('reads Host headers as a browser wrote them, and refuses what is not a plain host', () => {
    expect(hostnameOfHostHeader('LOCALHOST.:4010')).toBe('localhost');
    expect(hostnameOfHostHeader('127.1:4010')).toBe('127.0.0.1');
    expect(hostnameOfHostHeader('[0:0::1]:80')).toBe('[::1]');
    for (const bad of ['', ' ', 'a b', 'x@127.0.0.1', '127.0.0.1@x', 'x/127.0.0.1', 'x#y', 'x?y'])
      expect(hostnameOfHostHeader(bad), bad).toBeUndefined();
  });

  it('reads Origins as URLs: scheme, host and port only', () => {
    expect(hostnameOfOrigin('http://127.0.0.1.nip.io:8080')).toBe('127.0.0.1.nip.io');
    expect(hostnameOfOrigin('HTTPS://Localhost.')).toBe('localhost');
    for (const bad of ['null', 'file://', 'ws://localhost', 'http://localhost/', 'http://u@localhost'])
      expect(hostnameOfOrigin(bad), bad).toBeUndefined();
  });

  it('knows loopback names and addresses, and nothing that merely starts with 127.', () => {
    for (const name of ['127.0.0.1', '127.255.0.9', '[::1]', '[::ffff:7f00:1]', 'localhost', 'a.localhost'])
      expect(isLoopbackHostname(name), name).toBe(true);
    for (const name of [
      '127.attacker.example',
      '127.0.0.1.nip.io',
      'localhost.evil.example',
      '0.0.0.0',
      '[::]',
      'notlocalhost',
    ])
      expect(isLoopbackHostname(name), name).toBe(false);
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.9.9.9'])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['128.0.0.1', '::ffff:10.0.0.1', '1.127.0.0', '127.0.0.1.nip.io', '127.999.0.1'])
      expect(isLoopbackAddress(address), address).toBe(false);
  });

  it('accepts the mock own names and the allowed ones; all switches only the Host check off', () => {
    expect(hostRefusal(undefined, undefined, [])).toBeUndefined();
    expect(hostRefusal('10.0.0.7:4010', '::ffff:10.0.0.7', [])).toBeUndefined();
    expect(hostRefusal('10.0.0.8:4010', '10.0.0.7', [])).toMatch(/does not name this mock/);
    expect(hostRefusal('x.corp.example', undefined, ['.corp.example'])).toBeUndefined();
    expect(hostRefusal('xcorp.example', undefined, ['.corp.example'])).toMatch(/allowedHosts/);
    expect(hostRefusal('evil.example', undefined, 'all')).toBeUndefined();
    expect(originRefusal('https://evil.example', 'all')).toMatch(/other origins/);
    expect(originRefusal('http://x.corp.example:3000', ['.corp.example'])).toBeUndefined();
  });
});
