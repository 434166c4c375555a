/**
 * What people write about the two demo apps, by rating. Titles and bodies are drawn apart (a title
 * fits any body of its rating), so sixty reviews do not repeat one another word for word. The story:
 * Pocket Ledger's 2.3.0 broke sync for some people (the one- and two-star reviews of five weeks ago),
 * 2.3.1 fixed it; Tideline's users keep asking for tide alerts, which 3.8.0 (in review) adds.
 */
export interface ReviewPool {
  titles: Record<1 | 2 | 3 | 4 | 5, string[]>;
  bodies: Record<1 | 2 | 3 | 4 | 5, string[]>;
  /** Reviews German customers write in German, each with its own rating. */
  german: { rating: 1 | 2 | 3 | 4 | 5; title: string; body: string }[];
}

export const reviewPools: Record<'pocket-ledger' | 'tideline', ReviewPool> = {
  'pocket-ledger': {
    titles: {
      5: ['Finally a budget app I stick with', 'Worth every penny', 'Bills never sneak up on me now', 'Clean, fast, no nonsense', 'Best budgeting app I’ve tried', 'Love it', 'Changed how I handle money', 'Simple and it just works'],
      4: ['Really good, one wish', 'Nearly perfect', 'Great app', 'Solid budgeting tool', 'Very useful'],
      3: ['Good but the widget lags', 'Decent', 'OK, needs CSV export'],
      2: ['Sync lost some entries', 'Was great until the update', 'Too expensive now'],
      1: ['Lost a month of data', 'Sync is broken', 'Crashes on launch'],
    },
    bodies: {
      5: [
        'I have tried YNAB, spreadsheets and three other apps. This is the first one I still open every day after two months. Entering an expense takes two taps.',
        'The bill reminders alone paid for the subscription: no more late fees on my credit card.',
        'Shared budget with my partner syncs instantly between our phones. We finally argue less about money.',
        'No ads, no upselling every five minutes, and the monthly overview is exactly what I need.',
        'The recurring bills calendar is brilliant. I can see at a glance what leaves my account this week.',
        'Categories are flexible and the charts are clear. Support answered my question within a day.',
        'Paid off my overdraft in four months thanks to the envelope view. Thank you!',
        'Face ID lock, iCloud backup and a widget that shows what is left for the month. Perfect.',
      ],
      4: [
        'Does everything I want. Only missing an export to CSV for my accountant.',
        'Great app. I would love a dark mode for the charts; the white background is bright at night.',
        'Very good for monthly budgets. Splitting a transaction over two categories would make it perfect.',
        'Fast and pretty. The widget sometimes shows yesterday’s balance until I open the app.',
        'Works well with multiple currencies, which matters when you live between two countries.',
      ],
      3: [
        'Useful, but I wish I could import my bank statements instead of typing everything.',
        'The app is fine but the yearly price is steep compared to what it did last year.',
        'Nice design. The home screen widget often does not refresh, which is the main reason I bought it.',
      ],
      2: [
        'After updating to 2.3.0 my entries from last week were gone on my iPad. They are still on my phone, but I no longer trust the sync.',
        'Used to love it. Since the last update some transactions show twice after syncing.',
        'Price went up for existing subscribers with no new features that I use.',
      ],
      1: [
        'Updated this morning and a whole month of expenses disappeared. Support told me to wait for a fix. Not acceptable for a finance app.',
        'Sync between iPhone and iPad is completely broken since 2.3.0. Entries vanish and come back.',
        'Crashes as soon as I open it on my iPhone 12. Reinstalling did not help.',
      ],
    },
    german: [
      { rating: 5, title: 'Super App', body: 'Endlich behalte ich meine Ausgaben im Blick. Die Erinnerungen an Rechnungen sind Gold wert.' },
      { rating: 4, title: 'Sehr gut', body: 'Übersichtlich und schnell. Ein CSV-Export für die Steuererklärung fehlt noch.' },
      { rating: 1, title: 'Synchronisierung kaputt', body: 'Seit dem Update fehlen Buchungen auf dem iPad. So kann ich der App nicht vertrauen.' },
    ],
  },
  tideline: {
    titles: {
      5: ['Perfect for surf checks', 'Accurate tides', 'Use it every morning', 'Beautiful and precise', 'Essential for kayaking', 'Best tide app', 'Love the moon phases', 'Exactly what I needed'],
      4: ['Great, wish for alerts', 'Very good', 'Almost perfect', 'Really nice app', 'Good tide charts'],
      3: ['Fine but limited', 'OK app', 'Needs more stations'],
      2: ['Times are a bit off', 'Widget stopped updating', 'Too many premium prompts'],
      1: ['My station disappeared', 'Wrong tide times', 'Useless offline'],
    },
    bodies: {
      5: [
        'I check the tide chart before every surf session. It matches the harbour board to the minute.',
        'Clean chart, sunrise and moon phase on one screen. Nothing else I need before heading out.',
        'We sea-kayak on the west coast and plan every trip around this app. Never let us down.',
        'The lock screen widget with the next high and low tide is fantastic.',
        'Accurate for my little beach in Cornwall, which most apps do not even list.',
        'Simple, fast and no account needed. Paid for the yearly plan to support the developer.',
        'Great for fishing: tides, moon and sunrise together. Works offline on the boat too.',
        'Gorgeous design and the data is spot on for the Bay of Fundy, where it really matters.',
      ],
      4: [
        'Would be five stars with a notification before high tide. Everything else is perfect.',
        'Great app. Please add tide alerts so I do not have to keep opening it.',
        'Very accurate. I would like to compare two stations side by side.',
        'Love it. The Android version of my partner’s phone gets features later, though.',
        'Good charts, a week ahead is enough for me. A dark theme for night fishing would be nice.',
      ],
      3: [
        'Works, but my nearest station is 30 km away and the times differ a little.',
        'The free version is fine. Premium does not add enough for me yet.',
        'Nice app, but I need swell and wind too, so I still use another one.',
      ],
      2: [
        'Low tide was about 20 minutes later than the app said at my spot. Be careful.',
        'The widget stopped updating after the last iOS update until I reopen the app.',
        'Asks me to upgrade every time I open it. The tides themselves are good.',
      ],
      1: [
        'After the update my local station is gone from the list. Please bring it back.',
        'Tide times were an hour off during the clock change. Almost got stuck on the sandbank.',
        'Needs a connection to show anything, useless where I actually go to the sea.',
      ],
    },
    german: [
      { rating: 5, title: 'Perfekt für die Nordsee', body: 'Die Gezeiten für Sankt Peter-Ording stimmen genau. Sehr schöne Darstellung.' },
      { rating: 4, title: 'Sehr gute App', body: 'Genau und übersichtlich. Eine Benachrichtigung vor Hochwasser wäre toll.' },
      { rating: 2, title: 'Station fehlt', body: 'Meine Station an der Ostsee ist nicht dabei, die nächste ist zu weit weg.' },
    ],
  },
};

export const nicknames = [
  'BudgetBecca', 'kayak_kate', 'Tom from Leeds', 'mkrueger', 'jlo2011', 'Sarah T.', 'Dave in Sydney', 'nomadnurse',
  'surferdude84', 'Priya K', 'frugal_fred', 'AnnaB', 'harbourmaster', 'Coastal Chris', 'mum of three', 'J. Okafor',
  'lenamueller', 'pierre.d', 'notanaccountant', 'early riser', 'Sam W.', 'tidepooler', 'moneymindful', 'Kiwi Jen',
  'mattlewis', 'Emma from Toronto', 'fisherman_ole', 'RachelG', 'bike2work', 'Olivia M',
];

/** App Store territories (ISO 3166 alpha-3) and how many of the reviews come from each. */
export const territories: [string, number][] = [
  ['USA', 40], ['GBR', 15], ['CAN', 10], ['DEU', 10], ['AUS', 10], ['FRA', 4], ['NLD', 4], ['IRL', 3], ['NZL', 2], ['SWE', 2],
];
