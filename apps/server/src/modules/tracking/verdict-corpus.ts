import type { EngagementVerdict } from '@rally/shared/schemas/tracking';
import type { TagKind } from './verdict.ts';

/**
 * Real-world tag requests with the verdict each should get (issue 38). Every entry names where its
 * user agent, headers or address was observed. Addresses inside a published range stand for any
 * address of that range.
 */
export type CorpusEntry = {
  name: string;
  kind: TagKind;
  method?: string;
  ua: string | null;
  headers?: Record<string, string>;
  ip: string;
  expect: EngagementVerdict;
  source: string;
};

const GMAIL = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const NAV = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'cross-site' };
const HOME = '203.0.113.7';

export const VERDICT_CORPUS: CorpusEntry[] = [
  // People: mail clients and their image proxies loading the ad as the message is opened.
  {
    name: 'Gmail image proxy',
    kind: 'impression',
    ua: GMAIL,
    ip: '66.249.84.10',
    expect: 'person',
    source:
      'issue 38; https://github.com/mautic/mautic/issues/16069; https://github.com/browscap/browscap/issues/1108',
  },
  {
    name: 'Gmail image proxy (older)',
    kind: 'impression',
    ua: 'Mozilla/5.0 (Windows; U; Windows NT 5.1; de; rv:1.9.0.7) Gecko/2009021910 Firefox/3.0.7 (via ggpht.com GoogleImageProxy)',
    ip: '66.102.8.1',
    expect: 'person',
    source: 'https://github.com/gshutler/useragent/pull/33',
  },
  {
    name: 'Yahoo/AOL Mail proxy',
    kind: 'impression',
    ua: 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html',
    ip: '98.136.1.1',
    expect: 'person',
    source: 'https://github.com/faisalman/ua-parser-js/issues/494',
  },
  {
    name: 'Outlook.com / Microsoft 365 image load from Exchange Online',
    kind: 'impression',
    ua: CHROME,
    ip: '40.107.22.15',
    expect: 'person',
    source:
      'mail-gateways.json (Microsoft, imageProxy); https://learn.microsoft.com/en-us/microsoft-365/enterprise/urls-and-ip-address-ranges',
  },
  {
    name: 'Outlook 2016 desktop',
    kind: 'impression',
    ua: 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.6326; Pro)',
    ip: HOME,
    expect: 'person',
    source: 'https://github.com/ua-parser/uap-core/issues/132',
  },
  {
    name: 'Outlook 2016 (MSIE shell)',
    kind: 'impression',
    ua: 'Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/7.0; .NET4.0C; .NET4.0E; .NET CLR 2.0.50727; .NET CLR 3.0.30729; .NET CLR 3.5.30729; Microsoft Outlook 16.0.5257; ms-office; MSOffice 16)',
    ip: HOME,
    expect: 'person',
    source: 'https://github.com/shon/httpagentparser/issues/91',
  },
  {
    name: 'Outlook 2013',
    kind: 'impression',
    ua: 'Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.1; WOW64; Trident/7.0; SLCC2; .NET CLR 2.0.50727; .NET CLR 3.5.30729; .NET CLR 3.0.30729; Media Center PC 6.0; .NET4.0C; .NET4.0E; Microsoft Outlook 15.0.4693; ms-office; MSOffice 15)',
    ip: HOME,
    expect: 'person',
    source: 'https://github.com/tobie/ua-parser/issues/498',
  },
  {
    name: 'Apple Mail on macOS, privacy protection off',
    kind: 'impression',
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)',
    ip: HOME,
    expect: 'person',
    source:
      'https://github.com/medama-io/go-useragent/issues/10; https://github.com/ua-parser/uap-core/issues/528',
  },
  {
    name: 'Apple Mail on iPhone',
    kind: 'impression',
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 10_1_1 like Mac OS X) AppleWebKit/602.2.14 (KHTML, like Gecko) Mobile/14B100',
    ip: HOME,
    expect: 'person',
    source: 'https://github.com/biggora/express-useragent/issues/78',
  },
  {
    name: 'Thunderbird',
    kind: 'impression',
    ua: 'Mozilla/5.0 (Windows NT 10.0; WOW64; rv:52.0) Gecko/20100101 Thunderbird/52.9.1 Lightning/5.4.9.1',
    ip: HOME,
    expect: 'person',
    source: 'https://github.com/donatj/PhpUserAgent/issues/53',
  },
  {
    name: 'Spark',
    kind: 'impression',
    ua: 'Spark/1.7.3.948 CFNetwork/811.4.18 Darwin/16.5.0',
    ip: HOME,
    expect: 'person',
    source: 'https://github.com/faisalman/ua-parser-js/issues/237',
  },
  {
    name: 'Chrome showing the ad on a web page',
    kind: 'impression',
    ua: CHROME,
    headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
    ip: HOME,
    expect: 'person',
    source:
      'https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Sec-Fetch-Dest (image loads)',
  },
  {
    name: 'a person browsing through iCloud Private Relay',
    kind: 'impression',
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    ip: '172.226.10.4',
    expect: 'person',
    source:
      'https://check.live-direct-marketing.online/blog/apple-mail-v16-click-reporting-changes (a full Safari string for people on Apple relay addresses)',
  },
  {
    name: "a person's click in Chrome",
    kind: 'click',
    ua: CHROME,
    headers: NAV,
    ip: HOME,
    expect: 'person',
    source: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Sec-Fetch-Mode (navigate)',
  },
  {
    name: 'a click from Outlook desktop (no Fetch Metadata)',
    kind: 'click',
    ua: 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.15225; Pro)',
    ip: HOME,
    expect: 'person',
    source: 'https://github.com/DannyBoyNg/UserAgentService/issues/4',
  },
  {
    name: 'a click through Private Relay in Safari',
    kind: 'click',
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    headers: NAV,
    ip: '17.58.1.2',
    expect: 'person',
    source: 'https://check.live-direct-marketing.online/blog/apple-mail-v16-click-reporting-changes',
  },
  // Machine opens: Apple Mail Privacy Protection's prefetch at delivery.
  {
    name: 'Apple MPP prefetch (bare user agent)',
    kind: 'impression',
    ua: 'Mozilla/5.0',
    ip: '17.58.1.2',
    expect: 'machine_open',
    source:
      'https://github.com/ua-parser/uap-core/issues/509; https://help.socketlabs.com/docs/identifying-apple-mpp-opens-in-notification-api-events',
  },
  {
    name: 'Apple MPP prefetch via Akamai egress',
    kind: 'impression',
    ua: 'Mozilla/5.0',
    ip: '172.225.40.17',
    expect: 'machine_open',
    source:
      'https://wordtothewise.com/2021/09/apple-mpp-reporting-and-geolocation/ (MPP loads egress through Private Relay)',
  },
  {
    name: 'Apple MPP prefetch without a user agent',
    kind: 'impression',
    ua: null,
    ip: '17.120.5.5',
    expect: 'machine_open',
    source:
      'https://check.live-direct-marketing.online/blog/apple-mail-v16-click-reporting-changes ("empty for MPP"; 17.0.0.0/8)',
  },
  // Scanners: mail security gateways fetching every link at delivery, and fetches that are no click.
  {
    name: 'Microsoft Safe Links click with a browser user agent',
    kind: 'click',
    ua: CHROME,
    ip: '40.94.29.10',
    expect: 'scanner',
    source:
      'issue 38 (browser UA from cloud addresses): 40.94.0.0/16 is outside the shipped Exchange Online ranges, so only the burst rule can catch it — a known miss',
  },
  {
    name: 'Exchange Online link check',
    kind: 'click',
    ua: CHROME,
    ip: '40.107.22.15',
    expect: 'scanner',
    source:
      'https://learn.microsoft.com/en-us/microsoft-365/enterprise/urls-and-ip-address-ranges (Exchange Online ranges)',
  },
  {
    name: 'Outlook.com link preview',
    kind: 'click',
    ua: 'Mozilla/5.0 (compatible; MSIE 10.0; Windows NT 6.2; WOW64; Trident/6.0)',
    ip: '132.245.26.156',
    expect: 'scanner',
    source:
      'https://exchangetuts.com/how-do-i-stop-outlookcom-from-following-links-in-email-1640799842939013',
  },
  {
    name: 'Proofpoint URL Defense',
    kind: 'click',
    ua: CHROME,
    ip: '148.163.150.20',
    expect: 'scanner',
    source: 'issue 38; mail-gateways.json (Proofpoint)',
  },
  {
    name: 'Mimecast URL Protect',
    kind: 'click',
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    ip: '205.139.110.61',
    expect: 'scanner',
    source: 'issue 38; mail-gateways.json (Mimecast)',
  },
  {
    name: 'Barracuda by its user agent',
    kind: 'click',
    ua: 'Barracuda Sentinel (EE)',
    ip: '35.170.131.4',
    expect: 'scanner',
    source: 'issue 38; the user agent names the gateway',
  },
  {
    name: 'Barracuda by its address',
    kind: 'impression',
    ua: CHROME,
    ip: '64.235.150.3',
    expect: 'scanner',
    source: 'mail-gateways.json (Barracuda)',
  },
  {
    name: 'Cisco Secure Email',
    kind: 'click',
    ua: CHROME,
    ip: '68.232.140.9',
    expect: 'scanner',
    source: 'issue 38; mail-gateways.json (Cisco)',
  },
  {
    name: 'click tag embedded as an image',
    kind: 'click',
    ua: CHROME,
    headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
    ip: HOME,
    expect: 'scanner',
    source: 'issue 38 (`<img src=…/c>`, Sec-Fetch-Dest: image)',
  },
  {
    name: 'click fetched by a script',
    kind: 'click',
    ua: CHROME,
    headers: { 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' },
    ip: HOME,
    expect: 'scanner',
    source: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Sec-Fetch-Mode',
  },
  {
    name: 'Gmail proxy following the click link',
    kind: 'click',
    ua: GMAIL,
    ip: '66.249.84.10',
    expect: 'scanner',
    source: 'the proxy only loads images (https://github.com/browscap/browscap/issues/1108)',
  },
  // Bots.
  {
    name: 'Googlebot',
    kind: 'impression',
    ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    ip: '66.249.66.1',
    expect: 'bot',
    source: 'https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers',
  },
  {
    name: 'bingbot click',
    kind: 'click',
    ua: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    ip: '157.55.39.1',
    expect: 'bot',
    source: 'https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0',
  },
  { name: 'curl', kind: 'click', ua: 'curl/8.5.0', ip: HOME, expect: 'bot', source: 'isbot list' },
  {
    name: 'HEAD probe (Apple Mail 16 URL check)',
    kind: 'click',
    method: 'HEAD',
    ua: CHROME,
    ip: '17.58.1.2',
    expect: 'bot',
    source:
      'https://check.live-direct-marketing.online/blog/apple-mail-v16-click-reporting-changes (HEAD request)',
  },
  {
    name: 'Chrome prefetch',
    kind: 'click',
    ua: CHROME,
    headers: { 'sec-purpose': 'prefetch' },
    ip: HOME,
    expect: 'bot',
    source: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Sec-Purpose',
  },
  {
    name: 'no user agent outside Apple',
    kind: 'impression',
    ua: null,
    ip: HOME,
    expect: 'bot',
    source: 'issue 7 (a request with no user agent is no browser)',
  },
  {
    name: 'bare Mozilla/5.0 outside Apple',
    kind: 'impression',
    ua: 'Mozilla/5.0',
    ip: HOME,
    expect: 'bot',
    source: 'https://github.com/ua-parser/uap-core/issues/509 (only Apple sends it, from its relay)',
  },
];
