import { tagsForForm, tagsFromForm } from './tags-field.js';

describe('tagsFromForm', () => {
  it.each([
    ['news promo', [], ['news', 'promo']],
    ['  News,promo ,, x\t', [], ['News', 'promo', 'x']],
    ['', ['news'], []],
    ['   ', ['news'], []],
    // Bad tags are passed on as typed: the service's message names them.
    ['spring_sale', [], ['spring_sale']],
  ])('reads %j (the link has %j) as %j', (value, current, expected) => {
    expect(tagsFromForm(value, current)).toEqual(expected);
  });

  it.each([
    ['news promo', ['news', 'promo']],
    ['Promo, NEWS news', ['news', 'promo']],
    ['', []],
  ])('reads %j as no change when the link has %j', (value, current) => {
    expect(tagsFromForm(value, current)).toBeUndefined();
  });

  it('shows the tags separated by spaces, and reads them back unchanged', () => {
    const sut = tagsForForm(['news', 'spring-sale']);

    expect(sut).toBe('news spring-sale');
    expect(tagsFromForm(sut, ['news', 'spring-sale'])).toBeUndefined();
  });
});
