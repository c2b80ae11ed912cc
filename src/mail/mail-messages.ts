import { Eta } from 'eta';
import type { OutgoingMail } from './mail.repository.js';

/**
 * What each email says, in plain text and in HTML (both readable alone: the HTML is the text with
 * its links made links). Eta escapes every value in the HTML; the links in them are built from
 * SHORT_BASE_URL by the callers.
 */
const eta = new Eta({ autoEscape: true, autoTrim: false, useWith: false });
/** The plain-text bodies: nothing to escape (an `&` in a URL stays an `&`). */
const textEta = new Eta({ autoEscape: false, autoTrim: false, useWith: false });

/** The HTML around every message: plain, narrow, readable in any client and in dark mode. */
const HTML_LAYOUT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title><%= it.subject %></title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 36rem; margin: 0 auto; padding: 1rem;">
<%~ it.body %>
<p style="color: #555; font-size: 0.875rem;">Sent by shortlink at <a href="<%= it.baseUrl %>"><%= it.baseUrl %></a>.</p>
</body></html>
`;

function message(
  kind: string,
  recipient: string,
  subject: string,
  baseUrl: string,
  text: string,
  htmlBody: string,
  data: object,
): OutgoingMail {
  const body = eta.renderString(htmlBody, data);
  return {
    kind,
    recipient,
    subject,
    text: `${textEta.renderString(text, data)}\n--\nSent by shortlink at ${baseUrl}.\n`,
    html: eta.renderString(HTML_LAYOUT, { subject, body, baseUrl }),
  };
}

export function passwordResetMail(recipient: string, baseUrl: string, link: string, minutes: number): OutgoingMail {
  return message(
    'password_reset',
    recipient,
    'Reset your shortlink password',
    baseUrl,
    `Someone (we hope you) asked to set a new password for your shortlink account.

Open this link to choose one. It works once, for <%= it.minutes %> minutes:

<%= it.link %>

If you did not ask, ignore this email: your password stays as it is.
`,
    `<p>Someone (we hope you) asked to set a new password for your shortlink account.</p>
<p><a href="<%= it.link %>">Choose a new password</a>. The link works once, for <%= it.minutes %> minutes:<br><%= it.link %></p>
<p>If you did not ask, ignore this email: your password stays as it is.</p>`,
    { link, minutes },
  );
}

export function verifyEmailMail(recipient: string, baseUrl: string, link: string, hours: number): OutgoingMail {
  return message(
    'verify_email',
    recipient,
    'Confirm your email for shortlink',
    baseUrl,
    `Welcome to shortlink. Open this link to confirm your email and start creating short links.
It works for <%= it.hours %> hours:

<%= it.link %>

If you did not sign up, ignore this email.
`,
    `<p>Welcome to shortlink. Confirm your email to start creating short links.</p>
<p><a href="<%= it.link %>">Confirm my email</a>. The link works for <%= it.hours %> hours:<br><%= it.link %></p>
<p>If you did not sign up, ignore this email.</p>`,
    { link, hours },
  );
}

export function webhookDisabledMail(
  recipient: string,
  baseUrl: string,
  endpoint: { url: string; failingSince: Date | null },
): OutgoingMail {
  const data = {
    url: endpoint.url,
    since: endpoint.failingSince?.toISOString().slice(0, 16).replace('T', ' ') ?? 'a while',
    page: `${baseUrl}/dashboard/webhooks`,
  };
  return message(
    'webhook_disabled',
    recipient,
    'A webhook endpoint of yours was disabled',
    baseUrl,
    `Your webhook endpoint

  <%= it.url %>

failed every delivery since <%= it.since %> UTC and was disabled: it receives no more messages.
Fix the receiver, then create the endpoint again on <%= it.page %>.
`,
    `<p>Your webhook endpoint <code><%= it.url %></code> failed every delivery since <%= it.since %> UTC and was disabled: it receives no more messages.</p>
<p>Fix the receiver, then create the endpoint again on <a href="<%= it.page %>">your webhooks page</a>.</p>`,
    data,
  );
}

export interface ReportLine {
  shortUrl: string;
  reason: string;
  createdAt: Date;
}

/** `total`: the reports of the window, of which `reports` are listed (the first ones). */
export function reportsDigestMail(
  recipient: string,
  baseUrl: string,
  reports: ReportLine[],
  total: number,
): OutgoingMail {
  const lines = reports.map((report) => ({
    ...report,
    at: report.createdAt.toISOString().slice(0, 16).replace('T', ' '),
  }));
  const count = total;
  const more = total - reports.length;
  return message(
    'reports',
    recipient,
    count === 1 ? 'A short link was reported' : `${count} short links were reported`,
    baseUrl,
    `<%= it.count === 1 ? 'A short link was' : it.count + ' short links were' %> reported to the administrators of shortlink:

<% for (const line of it.lines) { %>- <%= line.shortUrl %> (<%= line.reason %>, <%= line.at %> UTC)
<% } %><% if (it.more > 0) { %>- and <%= it.more %> more
<% } %>
Review them on <%= it.page %>.
`,
    `<p><%= it.count === 1 ? 'A short link was' : it.count + ' short links were' %> reported to the administrators of shortlink:</p>
<ul><% for (const line of it.lines) { %><li><%= line.shortUrl %> (<%= line.reason %>, <%= line.at %> UTC)</li><% } %><% if (it.more > 0) { %><li>and <%= it.more %> more</li><% } %></ul>
<p>Review them on <a href="<%= it.page %>">the reports page</a>.</p>`,
    { lines, count, more, page: `${baseUrl}/admin/reports` },
  );
}

/** A change to how an account signs in, said as the owner reads it ("Two-factor sign-in was turned on"). */
export function signInChangedMail(recipient: string, baseUrl: string, change: string, at: Date): OutgoingMail {
  return message(
    'sign_in_changed',
    recipient,
    `Your shortlink sign-in changed: ${change.toLowerCase()}`,
    baseUrl,
    `<%= it.change %> on your shortlink account (<%= it.at %> UTC).

If that was you, there is nothing to do.

If it was not: someone can use your account. Set a new password on <%= it.reset %>
(every session ends with it), then check the sign-in methods and sessions on <%= it.account %>.
`,
    `<p><%= it.change %> on your shortlink account (<%= it.at %> UTC).</p>
<p>If that was you, there is nothing to do.</p>
<p>If it was not: someone can use your account. <a href="<%= it.reset %>">Set a new password</a> (every session ends with it), then check the sign-in methods and sessions on <a href="<%= it.account %>">your account page</a>.</p>`,
    {
      change,
      at: at.toISOString().slice(0, 16).replace('T', ' '),
      reset: `${baseUrl}/password-reset`,
      account: `${baseUrl}/account`,
    },
  );
}
