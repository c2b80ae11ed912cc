import { extractToken } from './token-extraction.js';

const TOKEN = 'sl_0123456789ABCDEFGHIJabcdefghij0123456789';

describe('extractToken', () => {
  it('finds no token when neither header is sent', () => {
    expect(extractToken({})).toEqual({ kind: 'none' });
  });

  it('reads X-API-Key', () => {
    expect(extractToken({ 'x-api-key': TOKEN })).toEqual({ kind: 'token', value: TOKEN });
  });

  it('trims spaces around X-API-Key', () => {
    expect(extractToken({ 'x-api-key': `  ${TOKEN} ` })).toEqual({ kind: 'token', value: TOKEN });
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('reads Authorization with the scheme spelled %s', (scheme) => {
    expect(extractToken({ authorization: `${scheme} ${TOKEN}` })).toEqual({ kind: 'token', value: TOKEN });
  });

  it('tolerates extra blanks between scheme and token and around the value', () => {
    expect(extractToken({ authorization: ` Bearer \t ${TOKEN}  ` })).toEqual({ kind: 'token', value: TOKEN });
  });

  it('accepts both headers carrying the same token', () => {
    expect(extractToken({ 'x-api-key': TOKEN, authorization: `Bearer ${TOKEN}` })).toEqual({
      kind: 'token',
      value: TOKEN,
    });
  });

  it('refuses both headers carrying different tokens', () => {
    const sut = extractToken({ 'x-api-key': TOKEN, authorization: `Bearer ${TOKEN}x` });

    expect(sut).toEqual({ kind: 'malformed', reason: expect.stringContaining('different') });
  });

  it.each([
    ['Basic x', 'another scheme'],
    ['Basic dXNlcjpwYXNz', 'basic credentials'],
    ['Token x', 'another scheme'],
    ['Bearer', 'no token'],
    ['Bearer ', 'no token after the space'],
    ['Bearer a b', 'two values'],
    [`Bearer${TOKEN}`, 'no separator'],
    [TOKEN, 'a bare token'],
    ['', 'an empty header'],
  ])('refuses Authorization "%s" (%s)', (authorization) => {
    expect(extractToken({ authorization })).toMatchObject({ kind: 'malformed' });
  });

  it('refuses a malformed Authorization header even when X-API-Key is fine', () => {
    expect(extractToken({ 'x-api-key': TOKEN, authorization: 'Basic x' })).toMatchObject({ kind: 'malformed' });
  });

  it('refuses an empty X-API-Key rather than treating the call as anonymous', () => {
    expect(extractToken({ 'x-api-key': '' })).toMatchObject({ kind: 'malformed' });
    expect(extractToken({ 'x-api-key': '   ' })).toMatchObject({ kind: 'malformed' });
  });

  it('refuses a repeated X-API-Key header', () => {
    expect(extractToken({ 'x-api-key': [TOKEN, TOKEN] })).toMatchObject({ kind: 'malformed' });
  });

  it('passes a token of the wrong shape on for the lookup to refuse', () => {
    // Shape checks belong to authentication; extraction only reads headers.
    expect(extractToken({ 'x-api-key': 'not-a-token' })).toEqual({ kind: 'token', value: 'not-a-token' });
  });
});
