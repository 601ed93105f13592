import { nextCursorOf } from '../../../console/src/pages/next-link.js';

describe('the next cursor of a plain-array list, from its Link header', () => {
  const request = 'http://127.0.0.1:3000/v1/reports?type=BIAS';

  it('reads the cursor of the rel="next" target, relative to the request', () => {
    expect(nextCursorOf('</v1/reports?type=BIAS&cursor=abc%2Bd>; rel="next"', request)).toBe('abc+d');
  });

  it('finds next among several links and relation types, quoted or not', () => {
    const link = '</v1/reports?cursor=first>; rel="first", </v1/reports?cursor=n2>; rel="prefetch next"';
    expect(nextCursorOf(link, request)).toBe('n2');
    expect(nextCursorOf('<https://api.example/v1/reports?cursor=x>;rel=next', request)).toBe('x');
  });

  it('answers null at the end of the list (no header, or no next link)', () => {
    expect(nextCursorOf(null, request)).toBeNull();
    expect(nextCursorOf('</v1/reports?cursor=p>; rel="prev"', request)).toBeNull();
    expect(nextCursorOf('</v1/reports>; rel="next"', request)).toBeNull();
  });
});
