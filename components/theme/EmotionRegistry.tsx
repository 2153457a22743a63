'use client';
/**
 * Collects the styles MUI (emotion) creates while a page renders on the server and puts them into the streamed
 * HTML before the markup that uses them (Next's useServerInsertedHTML), so pages arrive styled and hydrate
 * without style mismatches.
 */
import { useState, type ReactNode } from 'react';
import createCache, { type EmotionCache } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { useServerInsertedHTML } from 'next/navigation';

interface Registry {
  cache: EmotionCache;
  flush(): { name: string; isGlobal: boolean }[];
}

function createRegistry(): Registry {
  const cache = createCache({ key: 'mui' });
  cache.compat = true;
  const insert = cache.insert.bind(cache);
  let inserted: { name: string; isGlobal: boolean }[] = [];
  cache.insert = (selector, serialized, sheet, shouldCache) => {
    if (cache.inserted[serialized.name] === undefined) inserted.push({ name: serialized.name, isGlobal: !selector });
    return insert(selector, serialized, sheet, shouldCache);
  };
  return {
    cache,
    flush() {
      const names = inserted;
      inserted = [];
      return names;
    },
  };
}

export function EmotionRegistry({ children }: { children: ReactNode }) {
  const [registry] = useState(createRegistry);
  useServerInsertedHTML(() => {
    const names = registry.flush();
    if (names.length === 0) return null;
    const globals: ReactNode[] = [];
    let styles = '';
    let attribute = registry.cache.key;
    for (const { name, isGlobal } of names) {
      const style = registry.cache.inserted[name];
      if (typeof style !== 'string') continue;
      if (isGlobal) {
        globals.push(<style key={name} data-emotion={`${registry.cache.key}-global ${name}`} dangerouslySetInnerHTML={{ __html: style }} />);
      } else {
        styles += style;
        attribute += ` ${name}`;
      }
    }
    return (
      <>
        {globals}
        {styles && <style data-emotion={attribute} dangerouslySetInnerHTML={{ __html: styles }} />}
      </>
    );
  });
  return <CacheProvider value={registry.cache}>{children}</CacheProvider>;
}
